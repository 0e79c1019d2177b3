// Internal helpers shared by the runtime core's translation units.
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/portable_type/scalar_type.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/core/tag.h>

#include "runtime/core/fb.h"

namespace executorch {
namespace runtime {
namespace internal {
// nbytes of a tensor of this shape and type; InvalidProgram if the type is unknown, the
// rank exceeds kTensorDimensionLimit, the dim order is not a permutation or the size
// overflows. Defined in tensor.cc.
Result<size_t> checked_nbytes(Span<const int32_t> sizes, Span<const uint8_t> dim_order, etensor::ScalarType type);
} // namespace internal
} // namespace runtime
} // namespace executorch

namespace etarm {
namespace core {

inline fb::Table as_table(const void* p) {
  return fb::Table{static_cast<const uint8_t*>(p)};
}

// The Tag an EValue of this serialized type becomes; false for unknown types.
inline bool kernel_type_to_tag(uint8_t type, executorch::runtime::Tag* tag) {
  using executorch::runtime::Tag;
  static const Tag kTags[] = {Tag::None, Tag::Int, Tag::Bool, Tag::Double, Tag::Tensor, Tag::String,
      Tag::ListInt, Tag::ListDouble, Tag::ListBool, Tag::ListTensor, Tag::ListOptionalTensor};
  if (type == 0 || type > sizeof(kTags) / sizeof(kTags[0])) {
    return false;
  }
  *tag = kTags[type - 1];
  return true;
}

// Spans over a verified vector (empty when the vector is absent).
template <typename T>
inline executorch::runtime::Span<const T> span_of(fb::Vec v) {
  if (v.p == nullptr) {
    return {};
  }
  return {reinterpret_cast<const T*>(v.data()), v.size()};
}

} // namespace core
} // namespace etarm
