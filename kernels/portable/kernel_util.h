// Helpers shared by the portable CPU kernels (one operator per file). Kernels are boxed
// OpFunctions registered with the ExecuTorch kernel registry; a bad argument (wrong type,
// dtype or shape, possibly from a corrupt .pte) makes the kernel fail through
// KernelRuntimeContext::fail(), never abort.
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/log.h>

#include "runtime/executorch_names.h"

// Fails the kernel with InvalidArgument (and logs) when `cond` does not hold.
#define ETARM_KERNEL_CHECK(ctx, cond, ...)                  \
  do {                                                      \
    if (!(cond)) {                                          \
      ET_LOG(Error, __VA_ARGS__);                           \
      (ctx).fail(::executorch::runtime::Error::InvalidArgument); \
      return;                                               \
    }                                                       \
  } while (0)

// ETARM_KERNEL(ns, op, overload, fn): the kernel `fn` of the operator "ns::op.overload" ("aten::add.out" is
// ETARM_KERNEL(aten, add, out, add_out)). It defines `etarm_kernel_<ns>__<op>__<overload>()`, which returns the
// Kernel, and registers it at static initialisation; a library built with ETARM_SELECTIVE_KERNELS does not: a
// firmware image that links it registers only the kernels its program uses (//kernels:defs.bzl,
// etarm_selected_kernels), and the linker drops the others.
#define ETARM_KERNEL(ns, op, overload, fn)                                                          \
  extern "C" ::executorch::runtime::Kernel etarm_kernel_##ns##__##op##__##overload() {             \
    return ::executorch::runtime::Kernel(#ns "::" #op "." #overload, fn);                          \
  }                                                                                                 \
  ETARM_REGISTER_AT_STARTUP(ns##__##op##__##overload)

#if defined(ETARM_SELECTIVE_KERNELS)
#define ETARM_REGISTER_AT_STARTUP(id)
#else
#define ETARM_REGISTER_AT_STARTUP(id)                                                               \
  namespace {                                                                                       \
  const ::executorch::runtime::Error etarm_registered_##id =                                        \
      ::executorch::runtime::register_kernel(etarm_kernel_##id());                                  \
  }
#endif

namespace etarm {
namespace kernels {

constexpr size_t kMaxDim = executorch::runtime::kTensorDimensionLimit;

inline Tensor* tensor_arg(Span<EValue*> s, size_t i) {
  return i < s.size() && s[i]->isTensor() ? &s[i]->toTensor() : nullptr;
}

inline bool is_none_arg(Span<EValue*> s, size_t i) {
  return i < s.size() && s[i]->isNone();
}

inline bool int_arg(Span<EValue*> s, size_t i, int64_t* v) {
  if (i >= s.size() || !s[i]->isInt()) {
    return false;
  }
  *v = s[i]->toInt();
  return true;
}

inline bool bool_arg(Span<EValue*> s, size_t i, bool* v) {
  if (i >= s.size() || !s[i]->isBool()) {
    return false;
  }
  *v = s[i]->toBool();
  return true;
}

// A number: Int, Double or Bool.
inline bool scalar_arg(Span<EValue*> s, size_t i, double* v) {
  if (i >= s.size()) {
    return false;
  }
  if (s[i]->isDouble()) {
    *v = s[i]->toDouble();
  } else if (s[i]->isInt()) {
    *v = static_cast<double>(s[i]->toInt());
  } else if (s[i]->isBool()) {
    *v = s[i]->toBool() ? 1.0 : 0.0;
  } else {
    return false;
  }
  return true;
}

inline bool int_list_arg(Span<EValue*> s, size_t i, ArrayRef<int64_t>* v) {
  if (i >= s.size() || !s[i]->isIntList()) {
    return false;
  }
  auto r = s[i]->tryToIntList();
  if (!r.ok()) {
    return false;
  }
  *v = *r;
  return true;
}

// Laid out as a contiguous tensor of its shape: the dims of size > 1 appear in dim order as in
// the shape. Size-1 dims may sit anywhere (their stride never moves an address), which a dim
// order derived from strides often does (a [1, 49, 10, 1] permute output: 0, 1, 3, 2).
inline bool contiguous(const Tensor& t) {
  const auto order = t.dim_order();
  ssize_t last = -1;
  for (ssize_t i = 0; i < t.dim(); ++i) {
    const ssize_t d = order[i];
    if (t.size(d) == 1) {
      continue;
    }
    if (d < last) {
      return false;
    }
    last = d;
  }
  return true;
}

inline bool has_data(const Tensor& t) {
  return t.numel() == 0 || t.const_data_ptr() != nullptr;
}

inline bool resize_out(const Tensor& out, const int32_t* sizes, size_t dim) {
  return executorch::runtime::resize_tensor(out, ArrayRef<int32_t>(sizes, dim)) == executorch::runtime::Error::Ok;
}

inline bool same_shape(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) {
    return false;
  }
  for (ssize_t d = 0; d < a.dim(); ++d) {
    if (a.size(d) != b.size(d)) {
      return false;
    }
  }
  return true;
}

// Normalises a possibly negative dimension; false if out of range.
inline bool wrap_dim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) {
    return false;
  }
  *out = dim < 0 ? dim + r : dim;
  return true;
}

// Broadcast shape of a and b (numpy rules); false if incompatible.
bool broadcast_shape(const Tensor& a, const Tensor& b, int32_t* sizes, size_t* dim);

// Element strides of `in` viewed with the broadcast shape (0 along broadcast dims).
void broadcast_strides(const Tensor& in, const int32_t* out_sizes, size_t out_dim, int32_t* strides);

// Walks a broadcast shape, keeping element offsets into up to two inputs.
class BroadcastWalker {
 public:
  BroadcastWalker(const int32_t* sizes, size_t dim, const int32_t* strides_a, const int32_t* strides_b);
  size_t a() const {
    return off_a_;
  }
  size_t b() const {
    return off_b_;
  }
  void next();

 private:
  const int32_t* sizes_;
  size_t dim_;
  const int32_t* sa_;
  const int32_t* sb_;
  int32_t idx_[kMaxDim] = {};
  size_t off_a_ = 0;
  size_t off_b_ = 0;
};

// Copies `numel` elements of `elem` bytes laid out over `sizes`: the source element at a
// logical index is at offset src_strides . index, the destination one at dst_strides . index.
void strided_copy(
    const void* src,
    void* dst,
    size_t elem,
    const int32_t* sizes,
    size_t dim,
    const int32_t* src_strides,
    const int32_t* dst_strides,
    size_t numel);

// c = a @ b for row-major float matrices a (m x k), b (k x n) and c (m x n).
void matmul_float(const float* a, const float* b, float* c, int32_t m, int32_t k, int32_t n);

// Calls fn(Q{}) (a type tag) with Q the C type of a quantized integer dtype (Char, Byte, Short, Int);
// false, without calling it, for any other dtype.
template <typename Fn>
bool visit_quantized_int_type(ScalarType dtype, Fn fn) {
  switch (dtype) {
    case ScalarType::Char:
      fn(int8_t{});
      return true;
    case ScalarType::Byte:
      fn(uint8_t{});
      return true;
    case ScalarType::Short:
      fn(int16_t{});
      return true;
    case ScalarType::Int:
      fn(int32_t{});
      return true;
    default:
      return false;
  }
}

// out = op(a, b) elementwise on float tensors, with broadcasting.
template <typename Op>
void binary_float_op(KernelRuntimeContext& ctx, const Tensor* a, const Tensor* b, const Tensor* out, Op op) {
  ETARM_KERNEL_CHECK(ctx, a && b && out, "binary op: expected (Tensor, Tensor, out Tensor)");
  ETARM_KERNEL_CHECK(
      ctx,
      a->scalar_type() == ScalarType::Float && b->scalar_type() == ScalarType::Float &&
          out->scalar_type() == ScalarType::Float,
      "binary op: only float tensors are supported");
  ETARM_KERNEL_CHECK(ctx, contiguous(*a) && contiguous(*b) && contiguous(*out), "binary op: contiguous tensors only");
  int32_t sizes[kMaxDim];
  size_t dim;
  ETARM_KERNEL_CHECK(ctx, broadcast_shape(*a, *b, sizes, &dim), "binary op: shapes do not broadcast");
  ETARM_KERNEL_CHECK(
      ctx, static_cast<size_t>(out->dim()) == dim && resize_out(*out, sizes, dim), "binary op: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*a) && has_data(*b) && has_data(*out), "binary op: tensor without data");
  const float* pa = a->const_data_ptr<float>();
  const float* pb = b->const_data_ptr<float>();
  float* po = out->mutable_data_ptr<float>();
  const ssize_t n = out->numel();
  if (a->numel() == n && b->numel() == n) {
    for (ssize_t i = 0; i < n; ++i) {
      po[i] = op(pa[i], pb[i]);
    }
    return;
  }
  int32_t sa[kMaxDim];
  int32_t sb[kMaxDim];
  broadcast_strides(*a, sizes, dim, sa);
  broadcast_strides(*b, sizes, dim, sb);
  BroadcastWalker w(sizes, dim, sa, sb);
  for (ssize_t i = 0; i < n; ++i, w.next()) {
    po[i] = op(pa[w.a()], pb[w.b()]);
  }
}

} // namespace kernels
} // namespace etarm
