// Out-of-line parts of the portable tensor types and tensor utilities declared by the
// runtime headers (tensor_impl.h, tensor_util.h, tensor_layout.h, evalue.h,
// tensor_shape_to_c_string.h).
#include <cstring>

#include <c10/util/safe_numerics.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_shape_to_c_string.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/core/tensor_layout.h>

namespace executorch {
namespace runtime {
namespace etensor {

ssize_t compute_numel(const TensorImpl::SizesType* sizes, ssize_t dim) {
  ET_CHECK_MSG(dim == 0 || sizes != nullptr, "Sizes must be provided for non-scalar tensors");
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    ET_CHECK_MSG(sizes[i] >= 0, "Size must be non-negative, got %d at dimension %zd", sizes[i], i);
    numel *= sizes[i];
  }
  return numel;
}

Result<ssize_t> safe_numel(const TensorImpl::SizesType* sizes, ssize_t dim) {
  ET_CHECK_OR_RETURN_ERROR(dim == 0 || sizes != nullptr, InvalidArgument, "Sizes must be provided");
  ssize_t numel = 1;
  for (ssize_t i = 0; i < dim; ++i) {
    ET_CHECK_OR_RETURN_ERROR(sizes[i] >= 0, InvalidArgument, "Negative size at dimension %zd", i);
    ssize_t next;
    ET_CHECK_OR_RETURN_ERROR(
        !c10::mul_overflows(numel, static_cast<ssize_t>(sizes[i]), &next),
        InvalidArgument,
        "numel overflows at dimension %zd",
        i);
    numel = next;
  }
  return numel;
}

TensorImpl::TensorImpl(
    ScalarType type,
    ssize_t dim,
    SizesType* sizes,
    void* data,
    DimOrderType* dim_order,
    StridesType* strides,
    TensorShapeDynamism dynamism,
    DeviceType device_type,
    DeviceIndex device_index)
    : sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data),
      dim_(dim),
      numel_(compute_numel(sizes, dim)),
      numel_bound_(numel_),
      type_(type),
      shape_dynamism_(dynamism),
      device_(device_type, device_index) {
  ET_CHECK_MSG(isValid(type_), "Invalid type %d", static_cast<int>(type_));
  ET_CHECK_MSG(dim_ >= 0, "Dimension must be non-negative, got %zd", dim_);
}

size_t TensorImpl::nbytes() const {
  return numel_ * elementSize(type_);
}

ssize_t TensorImpl::element_size() const {
  return elementSize(type_);
}

Error TensorImpl::internal_resize_contiguous(ArrayRef<SizesType> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(
      static_cast<ssize_t>(new_sizes.size()) == dim_,
      NotSupported,
      "Cannot change the rank of a tensor (%zd -> %zu)",
      dim_,
      new_sizes.size());
  if (dim_ == 0) {
    return Error::Ok;
  }
  if (shape_dynamism_ == TensorShapeDynamism::STATIC) {
    for (ssize_t i = 0; i < dim_; ++i) {
      ET_CHECK_OR_RETURN_ERROR(
          new_sizes[i] == sizes_[i],
          NotSupported,
          "Cannot resize a static tensor: dim %zd is %d, requested %d",
          i,
          sizes_[i],
          new_sizes[i]);
    }
    return Error::Ok;
  }
  auto numel = safe_numel(new_sizes.data(), dim_);
  if (!numel.ok()) {
    return numel.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      static_cast<size_t>(*numel) <= numel_bound_,
      NotSupported,
      "Resize to %zd elements exceeds the bound of %zu",
      *numel,
      numel_bound_);
  ET_CHECK_OR_RETURN_ERROR(strides_ != nullptr, Internal, "Dynamic tensor without strides");
  for (ssize_t i = 0; i < dim_; ++i) {
    sizes_[i] = new_sizes[i];
  }
  dim_order_to_stride_nocheck(sizes_, dim_order_, dim_, strides_);
  numel_ = *numel;
  return Error::Ok;
}

} // namespace etensor

namespace internal {

class TensorResizerFriend final {
 public:
  static Error resize(etensor::TensorImpl* impl, ArrayRef<etensor::TensorImpl::SizesType> sizes) {
    return impl->internal_resize_contiguous(sizes);
  }
};

namespace {
// InvalidArgument unless the tensors hold the same number of bytes.
Error check_same_nbytes(const etensor::Tensor& t_dst, const etensor::Tensor& t_src) {
  ET_CHECK_OR_RETURN_ERROR(
      t_dst.nbytes() == t_src.nbytes(),
      InvalidArgument,
      "Tensor sizes differ: %zu vs %zu bytes",
      t_dst.nbytes(),
      t_src.nbytes());
  return Error::Ok;
}
} // namespace

Error resize_tensor_impl(etensor::TensorImpl* impl, ArrayRef<etensor::TensorImpl::SizesType> new_sizes) {
  ET_CHECK_OR_RETURN_ERROR(impl != nullptr, InvalidArgument, "Null tensor");
  return TensorResizerFriend::resize(impl, new_sizes);
}

Error share_tensor_data(const etensor::Tensor& t_dst, const etensor::Tensor& t_src) {
  ET_CHECK_OK_OR_RETURN_ERROR(check_same_nbytes(t_dst, t_src));
  ET_CHECK_OR_RETURN_ERROR(
      t_src.const_data_ptr() != nullptr || t_src.nbytes() == 0, InvalidArgument, "Source tensor has no data");
  t_dst.unsafeGetTensorImpl()->set_data(t_src.mutable_data_ptr());
  return Error::Ok;
}

Error copy_tensor_data(const etensor::Tensor& t_dst, const etensor::Tensor& t_src) {
  ET_CHECK_OK_OR_RETURN_ERROR(check_same_nbytes(t_dst, t_src));
  if (t_dst.nbytes() == 0 || t_dst.const_data_ptr() == t_src.const_data_ptr()) {
    return Error::Ok;
  }
  ET_CHECK_OR_RETURN_ERROR(
      t_dst.const_data_ptr() != nullptr && t_src.const_data_ptr() != nullptr,
      InvalidArgument,
      "Tensor has no data");
  std::memcpy(t_dst.mutable_data_ptr(), t_src.const_data_ptr(), t_src.nbytes());
  return Error::Ok;
}

Error set_tensor_data(const etensor::Tensor& t, void* buffer, size_t buffer_size) {
  ET_CHECK_OR_RETURN_ERROR(
      buffer_size >= t.nbytes(), InvalidArgument, "Buffer of %zu bytes < %zu", buffer_size, t.nbytes());
  t.unsafeGetTensorImpl()->set_data(buffer);
  return Error::Ok;
}

void reset_data_ptr(const etensor::Tensor& tensor) {
  tensor.unsafeGetTensorImpl()->set_data(nullptr);
}

} // namespace internal

Error get_dim_order(const etensor::Tensor& tensor, etensor::TensorImpl::DimOrderType* out, size_t out_size) {
  ET_CHECK_OR_RETURN_ERROR(
      out_size == static_cast<size_t>(tensor.dim()), InvalidArgument, "Dim order buffer size mismatch");
  const auto order = tensor.dim_order();
  for (size_t i = 0; i < out_size; ++i) {
    out[i] = order[i];
  }
  return Error::Ok;
}

bool tensor_has_valid_dim_order(etensor::Tensor t) {
  if (!validate_dim_order(t.dim_order().data(), t.dim())) {
    ET_LOG(Error, "Tensor has an invalid dim order");
    return false;
  }
  return true;
}

bool tensor_is_default_dim_order(etensor::Tensor t) {
  bool ok = is_contiguous_dim_order(t.dim_order().data(), t.dim());
  if (!ok) {
    ET_LOG(Error, "Expected a tensor with the default dim order");
  }
  return ok;
}

bool tensor_is_channels_last_dim_order(etensor::Tensor t) {
  bool ok = is_channels_last_dim_order(t.dim_order().data(), t.dim());
  if (!ok) {
    ET_LOG(Error, "Expected a tensor with the channels-last dim order");
  }
  return ok;
}

bool tensor_is_default_or_channels_last_dim_order(etensor::Tensor t) {
  bool ok = is_contiguous_dim_order(t.dim_order().data(), t.dim()) ||
      is_channels_last_dim_order(t.dim_order().data(), t.dim());
  if (!ok) {
    ET_LOG(Error, "Expected a tensor with the default or channels-last dim order");
  }
  return ok;
}

bool tensors_have_same_dim_order(const ArrayRef<etensor::Tensor> tensor_list) {
  if (tensor_list.size() < 2) {
    return true;
  }
  bool all_default = true;
  bool all_channels_last = true;
  for (const auto& t : tensor_list) {
    all_default = all_default && is_contiguous_dim_order(t.dim_order().data(), t.dim());
    all_channels_last = all_channels_last && is_channels_last_dim_order(t.dim_order().data(), t.dim());
  }
  if (!(all_default || all_channels_last)) {
    ET_LOG(Error, "Tensors do not share a dim order");
    return false;
  }
  return true;
}

namespace {
template <typename T>
std::array<char, kTensorShapeStringSizeLimit> shape_to_string(Span<const T> shape) {
  std::array<char, kTensorShapeStringSizeLimit> out{};
  size_t pos = 0;
  auto put = [&](char c) {
    if (pos + 1 < out.size()) {
      out[pos++] = c;
    }
  };
  if (shape.size() > kTensorDimensionLimit) {
    const char* err = "(ERR: tensor rank too large)";
    while (*err) put(*err++);
    return out;
  }
  put('(');
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) {
      put(',');
      put(' ');
    }
    const int64_t v = static_cast<int64_t>(shape[i]);
    if (v < 0 || v > static_cast<int64_t>(internal::kMaximumPrintableTensorShapeElement)) {
      put('E');
      put('R');
      put('R');
      continue;
    }
    char digits[12];
    int n = 0;
    uint64_t u = static_cast<uint64_t>(v);
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    while (n > 0) put(digits[--n]);
  }
  put(')');
  out[pos] = '\0';
  return out;
}
} // namespace

std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(Span<const std::int32_t> shape) {
  return shape_to_string(shape);
}

std::array<char, kTensorShapeStringSizeLimit> tensor_shape_to_c_string(Span<const std::int64_t> shape) {
  return shape_to_string(shape);
}

// --- lists of optional tensors ------------------------------------------------------

template <>
ArrayRef<std::optional<etensor::Tensor>> BoxedEvalueList<std::optional<etensor::Tensor>>::get() const {
  for (size_t i = 0; i < wrapped_vals_.size(); ++i) {
    if (wrapped_vals_[i] == nullptr) {
      unwrapped_vals_[i] = std::nullopt;
    } else {
      unwrapped_vals_[i] = wrapped_vals_[i]->toOptional<etensor::Tensor>();
    }
  }
  return ArrayRef<std::optional<etensor::Tensor>>{unwrapped_vals_, wrapped_vals_.size()};
}

template <>
Result<ArrayRef<std::optional<etensor::Tensor>>>
BoxedEvalueList<std::optional<etensor::Tensor>>::tryGet() const {
  for (size_t i = 0; i < wrapped_vals_.size(); ++i) {
    if (wrapped_vals_[i] == nullptr) {
      unwrapped_vals_[i] = std::nullopt;
      continue;
    }
    auto r = wrapped_vals_[i]->tryToOptional<etensor::Tensor>();
    if (!r.ok()) {
      return r.error();
    }
    unwrapped_vals_[i] = *r;
  }
  return ArrayRef<std::optional<etensor::Tensor>>{unwrapped_vals_, wrapped_vals_.size()};
}

// --- TensorLayout ---------------------------------------------------------------

namespace internal {
// nbytes of a tensor described by (sizes, dim_order, type), with every check a .pte
// needs: known type, rank within the limit, matching dim order, no overflow.
Result<size_t> checked_nbytes(Span<const int32_t> sizes, Span<const uint8_t> dim_order, etensor::ScalarType type) {
  ET_CHECK_OR_RETURN_ERROR(isValid(type), InvalidProgram, "Invalid scalar type %d", static_cast<int>(type));
  ET_CHECK_OR_RETURN_ERROR(sizes.size() <= kTensorDimensionLimit, InvalidProgram, "Rank %zu too large", sizes.size());
  ET_CHECK_OR_RETURN_ERROR(
      dim_order.size() == sizes.size() && validate_dim_order(dim_order.data(), dim_order.size()),
      InvalidProgram,
      "Invalid dim order");
  auto numel = etensor::safe_numel(sizes.data(), sizes.size());
  // Strides are int32: every element must be addressable with one.
  if (!numel.ok() || *numel > INT32_MAX) {
    return Error::InvalidProgram;
  }
  size_t nbytes;
  ET_CHECK_OR_RETURN_ERROR(
      !c10::mul_overflows(static_cast<size_t>(*numel), elementSize(type), &nbytes), InvalidProgram, "nbytes overflows");
  return nbytes;
}
} // namespace internal

Result<const TensorLayout> TensorLayout::create(
    Span<const int32_t> sizes,
    Span<const uint8_t> dim_order,
    etensor::ScalarType scalar_type) {
  auto nbytes = internal::checked_nbytes(sizes, dim_order, scalar_type);
  if (!nbytes.ok()) {
    return nbytes.error();
  }
  return TensorLayout(sizes, dim_order, scalar_type, *nbytes);
}

} // namespace runtime
} // namespace executorch
