// Which CMSIS-NN code path this build of the library uses: "MVE", "DSP" or "SCALAR".
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

const char* etarm_cmsis_nn_code_path(void);

#ifdef __cplusplus
}
#endif
