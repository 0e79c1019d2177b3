// cortex_m::quantized_add.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//     Tensor other, int other_zero_point, int other_multiplier, int other_shift,
//     int output_zero_point, int output_multiplier, int output_shift, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 out = clamp(rq(rq((self - self_zp) << 20, self_m, self_s) + rq((other - other_zp) << 20, other_m, other_s),
//                     output_m, output_s) + output_zp, -128, 127)
// where rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's ADD between two RESCALEs with single
// rounding (CMSIS-NN built with CMSIS_NN_USE_SINGLE_ROUNDING). Multipliers and shifts are computed
// ahead of time (python/etarm/cortex_m/quantized_add.py); shapes broadcast (numpy rules).
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

using cortex_m::Requantize;

// The leading dims where self or other is broadcast: the kernel walks them and lets CMSIS-NN add
// the trailing dims, which both operands have at the output's size, as one contiguous block.
size_t broadcast_dims(const Tensor& a, const Tensor& b, const int32_t* sizes, size_t dim) {
  auto size_of = [](const Tensor& t, size_t from_end) -> int32_t {
    return from_end < static_cast<size_t>(t.dim()) ? t.size(t.dim() - 1 - from_end) : 1;
  };
  size_t inner = 0;
  while (inner < dim) {
    const int32_t want = sizes[dim - 1 - inner];
    if (size_of(a, inner) != want || size_of(b, inner) != want) {
      break;
    }
    ++inner;
  }
  return dim - inner;
}

void quantized_add_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* a = tensor_arg(stack, 0);
  const Tensor* b = tensor_arg(stack, 4);
  const Tensor* out = tensor_arg(stack, 11);
  Requantize ra, rb, ro;
  ETARM_KERNEL_CHECK(
      ctx,
      stack.size() == 13 && a && b && out && cortex_m::requantize_args(stack, 1, &ra) &&
          cortex_m::requantize_args(stack, 5, &rb) && cortex_m::requantize_args(stack, 8, &ro),
      "cortex_m::quantized_add.out: bad arguments");
  ETARM_KERNEL_CHECK(
      ctx, cortex_m::valid_int8(ra) && cortex_m::valid_int8(rb) && cortex_m::valid_int8(ro),
      "cortex_m::quantized_add.out: zero point, multiplier or shift out of range");
  ETARM_KERNEL_CHECK(
      ctx,
      a->scalar_type() == ScalarType::Char && b->scalar_type() == ScalarType::Char &&
          out->scalar_type() == ScalarType::Char,
      "cortex_m::quantized_add.out: int8 tensors only");
  ETARM_KERNEL_CHECK(
      ctx, contiguous(*a) && contiguous(*b) && contiguous(*out), "cortex_m::quantized_add.out: contiguous tensors only");
  int32_t sizes[kMaxDim];
  size_t dim;
  ETARM_KERNEL_CHECK(ctx, broadcast_shape(*a, *b, sizes, &dim), "cortex_m::quantized_add.out: shapes do not broadcast");
  ETARM_KERNEL_CHECK(
      ctx, static_cast<size_t>(out->dim()) == dim && resize_out(*out, sizes, dim),
      "cortex_m::quantized_add.out: bad output shape");
  ETARM_KERNEL_CHECK(ctx, has_data(*a) && has_data(*b) && has_data(*out), "cortex_m::quantized_add.out: tensor without data");
  if (out->numel() == 0) {
    return;
  }
  const size_t outer_dim = broadcast_dims(*a, *b, sizes, dim);
  int32_t block = 1;
  for (size_t d = outer_dim; d < dim; ++d) {
    block *= sizes[d];
  }
  int32_t sa[kMaxDim];
  int32_t sb[kMaxDim];
  broadcast_strides(*a, sizes, dim, sa);
  broadcast_strides(*b, sizes, dim, sb);
  const int8_t* pa = a->const_data_ptr<int8_t>();
  const int8_t* pb = b->const_data_ptr<int8_t>();
  int8_t* po = out->mutable_data_ptr<int8_t>();
  const ssize_t blocks = out->numel() / block;
  BroadcastWalker w(sizes, outer_dim, sa, sb);
  for (ssize_t i = 0; i < blocks; ++i, w.next()) {
    // CMSIS-NN takes offsets added to the values: the negated zero points of the inputs.
    const arm_cmsis_nn_status status = arm_elementwise_add_s8(
        pa + w.a(), pb + w.b(), -ra.zero_point, ra.multiplier, ra.shift, -rb.zero_point, rb.multiplier, rb.shift,
        cortex_m::kAddLeftShift, po + i * block, ro.zero_point, ro.multiplier, ro.shift, INT8_MIN, INT8_MAX, block);
    ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "cortex_m::quantized_add.out: CMSIS-NN failed (%d)", status);
  }
}

} // namespace
ETARM_REGISTER_KERNEL("cortex_m::quantized_add.out", quantized_add_out)
} // namespace kernels
} // namespace etarm
