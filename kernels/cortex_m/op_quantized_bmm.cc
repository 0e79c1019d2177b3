// cortex_m::quantized_bmm.out(Tensor self, int self_zero_point, Tensor other, int other_zero_point,
//     bool transpose_other, int output_zero_point, int multiplier, int shift, *, Tensor(a!) out) -> Tensor(a!)
//
// A matrix product of two quantized activations (torch.bmm / torch.matmul, both operands computed at run time):
// self [B, M, K], other [B, K, N] ([B, N, K] with transpose_other: a k^T read without a transpose op), out [B, M, N];
// rank 2 ([M, K] x [K, N]) likewise; a batch of 1 broadcasts against the other operand's.
//   acc[b, m, n] = sum_k (self[b, m, k] - self_zp) * (other[b, k, n] - other_zp)
//   out[b, m, n] = clamp(round_half_up(acc * multiplier * 2^(shift - 31)) + output_zp, lowest, 127 or 32767)
// TOSA's MATMUL then one RESCALE (single rounding) by self_scale * other_scale / output_scale.
// int8: int32 accumulators (K at most 33025, so no sum overflows), multiplier > 0, shift in [-31, 30].
// int16 (a16w8): zero points 0, int64 accumulators holding TOSA's int48 (K below 2^17), and TOSA's 16-bit multiplier
// of an int48 RESCALE in the multiplier's top bits (its low 16 bits zero), shift in [-47, 13]; saturation to
// [-32767, 32767]. The CMSIS-NN snapshot has no arm_batch_matmul_s8: the kernel is the project's, scalar C, and with
// Helium (MVE) 8 products per instruction for int8 and for int16 with a transposed other; all compute the same integers.
// python/etarm/cortex_m/passes/quantized_bmm_as_cortex_m.py.
#include <limits>

#include "kernels/cortex_m/cortex_m_util.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define ETARM_BMM_MVE 1
#endif

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_bmm.out";
// The longest sums the accumulators hold whatever the values (python/etarm/cortex_m/passes: LARGEST_DEPTH).
constexpr int64_t kLargestDepthS8 = INT32_MAX / (255 * 255);
constexpr int64_t kLargestDepthS16 = (int64_t{1} << 17) - 1;

struct Product {
  int32_t batch, m, k, n;
  int64_t a_batch_stride, b_batch_stride;  // 0: a batch of 1 broadcast
  bool transposed;
  int32_t a_zp, b_zp, out_zp;
  int64_t multiplier;  // int16: the 16-bit one (the argument >> 16)
  int64_t right_shift;  // in [1, 62]
};

template <typename T>
T requantize(int64_t acc, const Product& p) {
  const int64_t lowest = cortex_m::activation_min<T>(), highest = std::numeric_limits<T>::max();
  const int64_t q = ((acc * p.multiplier + (int64_t{1} << (p.right_shift - 1))) >> p.right_shift) + p.out_zp;
  return static_cast<T>(q < lowest ? lowest : (q > highest ? highest : q));
}

// One row of the product, scalar: Acc is int32_t for int8 (the sums fit, kLargestDepthS8), int64_t for int16.
template <typename T, typename Acc>
void row_scalar(const T* a, const T* b, T* out, const Product& p) {
  for (int32_t j = 0; j < p.n; ++j) {
    Acc acc = 0;
    for (int32_t i = 0; i < p.k; ++i) {
      const T bv = p.transposed ? b[static_cast<int64_t>(j) * p.k + i] : b[static_cast<int64_t>(i) * p.n + j];
      acc += static_cast<Acc>(static_cast<Acc>(a[i]) - p.a_zp) * static_cast<Acc>(static_cast<Acc>(bv) - p.b_zp);
    }
    out[j] = requantize<T>(acc, p);
  }
}

#if defined(ETARM_BMM_MVE)
// One int8 row with Helium. Transposed: each output is the dot product of two contiguous rows, centred in 8 int16
// lanes (|q - zp| <= 255) and multiply-accumulated across them into an int32. Otherwise four outputs at a time in
// int32 lanes: each k adds the centred self value times four centred values of other's row k.
void row_mve(const int8_t* a, const int8_t* b, int8_t* out, const Product& p) {
  if (p.transposed) {
    for (int32_t j = 0; j < p.n; ++j) {
      const int8_t* bj = b + static_cast<int64_t>(j) * p.k;
      int32_t acc = 0;
      for (int32_t i = 0; i < p.k; i += 8) {
        const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(p.k - i));
        const int16x8_t x = vsubq_n_s16(vldrbq_z_s16(a + i, lanes), static_cast<int16_t>(p.a_zp));
        const int16x8_t y = vsubq_n_s16(vldrbq_z_s16(bj + i, lanes), static_cast<int16_t>(p.b_zp));
        acc = vmladavaq_p_s16(acc, x, y, lanes);
      }
      out[j] = requantize<int8_t>(acc, p);
    }
    return;
  }
  for (int32_t j = 0; j < p.n; j += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(p.n - j));
    int32x4_t acc = vdupq_n_s32(0);
    for (int32_t i = 0; i < p.k; ++i) {
      const int32x4_t y = vsubq_n_s32(vldrbq_z_s32(b + static_cast<int64_t>(i) * p.n + j, lanes), p.b_zp);
      acc = vmlaq_n_s32(acc, y, static_cast<int32_t>(a[i]) - p.a_zp);
    }
    int32_t sums[4];
    vst1q_s32(sums, acc);
    for (int32_t l = 0; l < 4 && j + l < p.n; ++l) {
      out[j + l] = requantize<int8_t>(sums[l], p);
    }
  }
}

// One int16 row of a transposed product with Helium: zero points are 0, so the rows' 8-lane products sum straight into
// an int64 (vmlaldava), exact as TOSA's int48. A plain other (columns) stays scalar: its int32 lanes could overflow.
void row_mve_s16_transposed(const int16_t* a, const int16_t* b, int16_t* out, const Product& p) {
  for (int32_t j = 0; j < p.n; ++j) {
    const int16_t* bj = b + static_cast<int64_t>(j) * p.k;
    int64_t acc = 0;
    for (int32_t i = 0; i < p.k; i += 8) {
      const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(p.k - i));
      acc = vmlaldavaq_p_s16(acc, vldrhq_z_s16(a + i, lanes), vldrhq_z_s16(bj + i, lanes), lanes);
    }
    out[j] = requantize<int16_t>(acc, p);
  }
}
#endif

template <typename T>
void run(const Tensor& a, const Tensor& b, const Tensor& out, const Product& p) {
  const T* pa = a.const_data_ptr<T>();
  const T* pb = b.const_data_ptr<T>();
  T* po = out.mutable_data_ptr<T>();
  for (int32_t batch = 0; batch < p.batch; ++batch) {
    const T* ab = pa + batch * p.a_batch_stride;
    const T* bb = pb + batch * p.b_batch_stride;
    for (int32_t row = 0; row < p.m; ++row) {
      const T* a_row = ab + static_cast<int64_t>(row) * p.k;
      T* out_row = po + (static_cast<int64_t>(batch) * p.m + row) * p.n;
#if defined(ETARM_BMM_MVE)
      if (sizeof(T) == 1) {
        row_mve(reinterpret_cast<const int8_t*>(a_row), reinterpret_cast<const int8_t*>(bb),
                reinterpret_cast<int8_t*>(out_row), p);
        continue;
      }
      if (p.transposed) {
        row_mve_s16_transposed(reinterpret_cast<const int16_t*>(a_row), reinterpret_cast<const int16_t*>(bb),
                               reinterpret_cast<int16_t*>(out_row), p);
        continue;
      }
#endif
      if (sizeof(T) == 1) {
        row_scalar<T, int32_t>(a_row, bb, out_row, p);
      } else {
        row_scalar<T, int64_t>(a_row, bb, out_row, p);
      }
    }
  }
}

bool int32_arg(Span<EValue*> stack, size_t i, int32_t* v) {
  int64_t value;
  if (!int_arg(stack, i, &value) || value < INT32_MIN || value > INT32_MAX) {
    return false;
  }
  *v = static_cast<int32_t>(value);
  return true;
}

void quantized_bmm_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  ETARM_KERNEL_CHECK(ctx, stack.size() == 10, "%s: expected 10 arguments, got %d", kName, static_cast<int>(stack.size()));
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 2);
  const Tensor* out = tensor_arg(stack, 8);
  Product p;
  int32_t multiplier, shift;
  ETARM_KERNEL_CHECK(
      ctx,
      a && b && out && int32_arg(stack, 1, &p.a_zp) && int32_arg(stack, 3, &p.b_zp) &&
          bool_arg(stack, 4, &p.transposed) && int32_arg(stack, 5, &p.out_zp) && int32_arg(stack, 6, &multiplier) &&
          int32_arg(stack, 7, &shift),
      "%s: bad arguments", kName);
  const bool s16 = a->scalar_type() == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx,
      (s16 || a->scalar_type() == ScalarType::Char) && b->scalar_type() == a->scalar_type() &&
          out->scalar_type() == a->scalar_type(),
      "%s: int8 or int16 operands and output, all of one type", kName);
  const bool zero_points_ok = s16
      ? p.a_zp == 0 && p.b_zp == 0 && p.out_zp == 0
      : p.a_zp >= INT8_MIN && p.a_zp <= INT8_MAX && p.b_zp >= INT8_MIN && p.b_zp <= INT8_MAX &&
          p.out_zp >= INT8_MIN && p.out_zp <= INT8_MAX;
  ETARM_KERNEL_CHECK(ctx, zero_points_ok, "%s: zero point out of range (int8's, or 0 for int16)", kName);
  // int16: TOSA's 16-bit multiplier of an int48 RESCALE, so that acc (47 bits) times it fits int64.
  const bool scale_ok = multiplier > 0 &&
      (s16 ? (multiplier & 0xFFFF) == 0 && shift >= -47 && shift <= 13 : shift >= -31 && shift <= 30);
  ETARM_KERNEL_CHECK(
      ctx, scale_ok, "%s: multiplier %d or shift %d out of range", kName, static_cast<int>(multiplier),
      static_cast<int>(shift));
  p.multiplier = s16 ? multiplier >> 16 : multiplier;
  p.right_shift = s16 ? 15 - shift : 31 - shift;

  const ssize_t rank = a->dim();
  ETARM_KERNEL_CHECK(
      ctx, (rank == 2 || rank == 3) && b->dim() == rank && out->dim() == rank,
      "%s: operands and output of rank 2 or 3, all of one rank", kName);
  const ssize_t a_batch = rank == 3 ? a->size(0) : 1;
  const ssize_t b_batch = rank == 3 ? b->size(0) : 1;
  const ssize_t m = a->size(rank - 2), k = a->size(rank - 1);
  const ssize_t b_k = p.transposed ? b->size(rank - 1) : b->size(rank - 2);
  const ssize_t n = p.transposed ? b->size(rank - 2) : b->size(rank - 1);
  ETARM_KERNEL_CHECK(
      ctx, b_k == k && (a_batch == b_batch || a_batch == 1 || b_batch == 1),
      "%s: shapes do not multiply (inner sizes %d and %d, batches %d and %d)", kName, static_cast<int>(k),
      static_cast<int>(b_k), static_cast<int>(a_batch), static_cast<int>(b_batch));
  ETARM_KERNEL_CHECK(
      ctx, k <= (s16 ? kLargestDepthS16 : kLargestDepthS8), "%s: %d products per sum may overflow the accumulator",
      kName, static_cast<int>(k));
  ETARM_KERNEL_CHECK(ctx, contiguous(*a) && contiguous(*b) && contiguous(*out), "%s: contiguous tensors only", kName);
  const ssize_t batch = a_batch > b_batch ? a_batch : b_batch;
  ETARM_KERNEL_CHECK(ctx, batch <= INT32_MAX && m <= INT32_MAX && n <= INT32_MAX, "%s: too large", kName);
  int32_t sizes[3] = {static_cast<int32_t>(batch), static_cast<int32_t>(m), static_cast<int32_t>(n)};
  ETARM_KERNEL_CHECK(
      ctx, resize_out(*out, rank == 3 ? sizes : sizes + 1, static_cast<size_t>(rank)), "%s: bad output shape", kName);
  if (out->numel() == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(
      ctx, has_data(*out) && (k == 0 || (has_data(*a) && has_data(*b))), "%s: tensor without data", kName);
  p.batch = sizes[0];
  p.m = static_cast<int32_t>(m);
  p.k = static_cast<int32_t>(k);
  p.n = static_cast<int32_t>(n);
  p.a_batch_stride = a_batch == 1 ? 0 : static_cast<int64_t>(m) * k;
  p.b_batch_stride = b_batch == 1 ? 0 : static_cast<int64_t>(k) * n;
  if (s16) {
    run<int16_t>(*a, *b, *out, p);
  } else {
    run<int8_t>(*a, *b, *out, p);
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_bmm, out, quantized_bmm_out)
} // namespace kernels
} // namespace etarm
