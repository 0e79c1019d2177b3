// Feature-map addressing: where element (y, x, c) of an operation's IFM, IFM2 or OFM is.
//
// An operation's area is split into up to four tiles, each with its own base address:
//   columns [0, width0)   rows [0, height0) tile 0, rows from height0 tile 2;
//   columns [width0, ...) rows [0, height1) tile 1, rows from height1 tile 3;
// coordinates inside a tile start at its top-left corner (Vela uses tile 2 to wrap around
// the end of a rolling buffer). Inside a tile:
//   NHWC:     base + y * stride_y + x * stride_x + c * element size (the hardware ignores
//             the channel stride for NHWC);
//   NHCWB16:  channels in bricks of 16: base + y * stride_y + x * stride_x
//             + (c / 16) * stride_c + (c % 16) * element size.
// Elements are 8, 16 or 32 bits, signed or unsigned (Ethos-U85 also has signed 64-bit ones,
// read and written as int64 only); the zero point is a 16-bit register read with the feature
// map's signedness.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/isa.h"
#include "runtime/ethosu/npu_model/memory.h"
#include "runtime/ethosu/npu_model/registers.h"
#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

enum class Operand { kIfm, kIfm2, kOfm };

struct FeatureMap {
  const char* name;  // "IFM", "IFM2", "OFM": for messages
  uint32_t region;
  uint64_t base[4];
  int64_t height0, height1, width0;  // tile sizes
  int64_t stride_x, stride_y, stride_c;
  Layout layout;
  int elem_bytes;  // 1, 2, 4 or 8 (8: read_wide/write_wide only)
  bool is_signed;
  int32_t zero_point;
  // Resolved region (set by resolve()).
  uint8_t* data;
  uint64_t size;
  // Where the bytes of every element read or written are noted for the hazard checker
  // (Memory::span), or nullptr.
  AccessRange* span;

  // Byte offset of element (y, x, c) in the region (may be out of range: check it).
  int64_t offset_of(int64_t y, int64_t x, int64_t c) const;
  // The value stored at element (y, x, c): an error if its bytes lie outside the region.
  Status read(int64_t y, int64_t x, int64_t c, int32_t* value) const;
  Status write(int64_t y, int64_t x, int64_t c, int32_t value) const;
  // The same for elements of any size, 64-bit ones included (write: the value's low bytes).
  Status read_wide(int64_t y, int64_t x, int64_t c, int64_t* value) const;
  Status write_wide(int64_t y, int64_t x, int64_t c, int64_t value) const;

  // Smallest and largest value the element type holds.
  int64_t type_min() const;
  int64_t type_max() const;
};

// Notes `fm`'s addressing in its span (if it has one), for the hazard checker.
void describe_span(const FeatureMap& fm);

// The feature map `operand` describes in the registers (region, tiles, strides, precision,
// zero point), resolved against `memory` (the region must exist; OFM: be writable).
Status feature_map_from_registers(const RegisterFile& regs, const Memory& memory, Operand operand,
                                  FeatureMap* out);

// Copies the h x w x c area of `fm` into `dst` (dense, c fastest), as stored (zero point
// not removed).
Status load_feature_map(const FeatureMap& fm, int64_t h, int64_t w, int64_t c, int32_t* dst);
// Stores a dense h x w x c block into `fm` (values already in the element type's range).
Status store_feature_map(const FeatureMap& fm, int64_t h, int64_t w, int64_t c, const int32_t* src);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
