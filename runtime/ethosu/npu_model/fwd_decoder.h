// Decoding Ethos-U85's fast weight format (FWD, NPU_SET_WEIGHT_FORMAT 1): what Vela 5.2.0
// writes for a weight stream when it picks the fast weight decoder. Unlike mlw (SWD) it has
// no variable-length codes: one 256-bit header, then a fixed-width index or raw value per
// weight, the whole padded to a multiple of 256 bits. Bits are read least-significant first.
//
// Header: bit 0 RAW (raw mode), bit 1 SMALL (2-bit indices), bits 2..103 zero, bits 104..111
// the zero adjustment (two's complement), bits 112..255 sixteen 9-bit table entries, each a
// folded value v (v & 1 ? -(v >> 1) : v >> 1, as in mlw).
// Body, per weight: RAW: 8 bits b, the weight is (int8)b - zero adjustment; SMALL: a 2-bit
// index into the table; otherwise a 4-bit index.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// Decodes the first `count` weights of `data[0, size)` into `out`.
Status decode_fwd(const uint8_t* data, size_t size, int16_t* out, size_t count);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
