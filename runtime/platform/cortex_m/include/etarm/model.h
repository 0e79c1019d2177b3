/*
 * The model embedded in a firmware image by etarm_firmware() (runtime/platform/firmware.bzl):
 * the .pte file's bytes, unchanged, in the board's bulk region (DDR on Corstone-300),
 * 64-byte aligned, and optionally the inputs to run it on.
 */
#ifndef ETARM_MODEL_H_
#define ETARM_MODEL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern const uint8_t etarm_model_data[];
extern const uint32_t etarm_model_size;

/* Optional input tensors embedded by etarm_firmware(inputs = ...): raw bytes of every
 * input, in order. Weak: in an image without inputs both symbols are absent and their
 * addresses are NULL. */
extern const uint8_t etarm_model_inputs[] __attribute__((weak));
extern const uint32_t etarm_model_inputs_size __attribute__((weak));

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ETARM_MODEL_H_ */
