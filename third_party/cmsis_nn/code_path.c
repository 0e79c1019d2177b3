// Fails the build when CMSIS-NN's own macros (from the compiler's feature macros, which -mcpu
// sets) do not select the path BUILD.bazel expects for the platform.
#include "third_party/cmsis_nn/code_path.h"

#include "arm_nn_math_types.h"

#if defined(ARM_MATH_MVEI)
#define PATH "MVE"
#elif defined(ARM_MATH_DSP)
#define PATH "DSP"
#else
#define PATH "SCALAR"
#endif

#if defined(ETARM_EXPECT_CMSIS_NN_PATH_MVE) && !defined(ARM_MATH_MVEI)
#error "CMSIS-NN: this platform should build the MVE path, but the compiler does not define __ARM_FEATURE_MVE"
#endif
#if defined(ETARM_EXPECT_CMSIS_NN_PATH_DSP) && (defined(ARM_MATH_MVEI) || !defined(ARM_MATH_DSP))
#error "CMSIS-NN: this platform should build the DSP path (no MVE, __ARM_FEATURE_DSP)"
#endif
#if defined(ETARM_EXPECT_CMSIS_NN_PATH_SCALAR) && (defined(ARM_MATH_MVEI) || defined(ARM_MATH_DSP))
#error "CMSIS-NN: this platform should build the plain C path"
#endif

const char* etarm_cmsis_nn_code_path(void) { return PATH; }
