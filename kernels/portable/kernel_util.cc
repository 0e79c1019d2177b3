#include "kernels/portable/kernel_util.h"

#include <cstring>

namespace etarm {
namespace kernels {

bool broadcast_shape(const Tensor& a, const Tensor& b, int32_t* sizes, size_t* dim) {
  const size_t n = static_cast<size_t>(a.dim() > b.dim() ? a.dim() : b.dim());
  if (n > kMaxDim) {
    return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const ssize_t da = a.dim() - 1 - static_cast<ssize_t>(i);
    const ssize_t db = b.dim() - 1 - static_cast<ssize_t>(i);
    const int32_t sa = da >= 0 ? a.sizes()[da] : 1;
    const int32_t sb = db >= 0 ? b.sizes()[db] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      return false;
    }
    sizes[n - 1 - i] = sa == 1 ? sb : sa;
  }
  *dim = n;
  return true;
}

void broadcast_strides(const Tensor& in, const int32_t* out_sizes, size_t out_dim, int32_t* strides) {
  int32_t stride = 1;
  for (size_t i = 0; i < out_dim; ++i) {
    const size_t d = out_dim - 1 - i;
    const ssize_t din = in.dim() - 1 - static_cast<ssize_t>(i);
    const int32_t size = din >= 0 ? in.sizes()[din] : 1;
    strides[d] = (size == 1 && out_sizes[d] != 1) ? 0 : stride;
    stride *= size;
  }
}

BroadcastWalker::BroadcastWalker(const int32_t* sizes, size_t dim, const int32_t* strides_a, const int32_t* strides_b)
    : sizes_(sizes), dim_(dim), sa_(strides_a), sb_(strides_b) {}

void BroadcastWalker::next() {
  for (size_t i = dim_; i-- > 0;) {
    ++idx_[i];
    off_a_ += sa_[i];
    off_b_ += sb_ ? sb_[i] : 0;
    if (idx_[i] < sizes_[i]) {
      return;
    }
    off_a_ -= static_cast<size_t>(sa_[i]) * sizes_[i];
    off_b_ -= sb_ ? static_cast<size_t>(sb_[i]) * sizes_[i] : 0;
    idx_[i] = 0;
  }
}

void strided_copy(
    const void* src,
    void* dst,
    size_t elem,
    const int32_t* sizes,
    size_t dim,
    const int32_t* src_strides,
    const int32_t* dst_strides,
    size_t numel) {
  const auto* s = static_cast<const uint8_t*>(src);
  auto* d = static_cast<uint8_t*>(dst);
  BroadcastWalker w(sizes, dim, src_strides, dst_strides);
  for (size_t i = 0; i < numel; ++i, w.next()) {
    std::memmove(d + w.b() * elem, s + w.a() * elem, elem);
  }
}

void matmul_float(const float* a, const float* b, float* c, int32_t m, int32_t k, int32_t n) {
  for (int32_t i = 0; i < m; ++i) {
    float* row = c + static_cast<size_t>(i) * n;
    for (int32_t j = 0; j < n; ++j) {
      row[j] = 0.0f;
    }
    for (int32_t p = 0; p < k; ++p) {
      const float x = a[static_cast<size_t>(i) * k + p];
      const float* brow = b + static_cast<size_t>(p) * n;
      for (int32_t j = 0; j < n; ++j) {
        row[j] += x * brow[j];
      }
    }
  }
}

} // namespace kernels
} // namespace etarm
