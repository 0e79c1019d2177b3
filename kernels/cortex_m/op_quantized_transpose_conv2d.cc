// cortex_m::quantized_transpose_conv2d.out(Tensor input, int input_zero_point, Tensor weight, Tensor bias,
//     Tensor multipliers, Tensor shifts, int[] stride, int[] padding, int[] output_padding, int output_zero_point,
//     int activation_min, int activation_max, int scratch_bytes, *, Tensor(a!) out) -> Tensor(a!)
//
// int8 NHWC input [N, H, W, C_in], symmetric int8 weights [C_out, KH, KW, C_in], int32 bias [C_out] (at scale
// input_scale * weight_scale[o]), int32 multipliers/shifts [C_out], windows as [h, w], output_padding below the
// stride (torch's rule), OH = (H - 1) * sh - 2 * ph + KH + output_padding_h (OW likewise):
//   acc[n, y * sh - ph + i, x * sw - pw + j, o] += (input[n, y, x, c] - input_zero_point) * weight[o, i, j, c]
//                                                  (taps landing outside the output dropped), + bias[o]
//   out[n, Y, X, o] = clamp(rq(acc, multipliers[o], shifts[o]) + output_zero_point, activation_min, activation_max)
// with rq(x, m, s) = round_half_up(x * m * 2^(s - 31)): TOSA's TRANSPOSE_CONV2D (out_pad top -ph, bottom
// output_padding - ph), RESCALE (single rounding), CLAMP, in NHWC.
// int8: arm_transpose_conv_s8 with its two buffers from one scratch block (at least scratch_bytes, the size the
// program records: python/etarm/cortex_m/scratch_sizes.py transpose_conv): the column buffer its size function asks
// for, then the int32 output image.
// int16 input and output (a16w8): zero points 0, an int64 bias; the snapshot has no s16 transposed convolution, so
// this file computes it (scalar C: each output gathers its taps into an int64 accumulator, no scratch) and
// requantizes as CMSIS-NN's s16 kernels do (the multiplier's top 15 bits: python/etarm/cortex_m/ops/library.py
// rescale_s16). python/etarm/cortex_m/passes/quantized_transpose_conv2d_as_cmsis_nn.py.
#include "arm_nnfunctions.h"
#include "kernels/cortex_m/window_args.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_transpose_conv2d.out";

struct TransposeConvArgs {
  const Tensor* input;
  const Tensor* weight;
  const Tensor* bias;
  const Tensor* multipliers;
  const Tensor* shifts;
  Tensor* out;
  int64_t input_zero_point, output_zero_point, activation_min, activation_max, scratch_bytes;
  int32_t stride_h, stride_w, padding_h, padding_w, extra_h, extra_w;  // extra: output_padding
  int32_t n, in_h, in_w, in_c, kernel_h, kernel_w, out_h, out_w, out_c;
  bool s16;
  // arm_transpose_conv_s8's column buffer and int32 output image (0 for int16).
  int64_t column_bytes, image_bytes;
};

// An int list [h, w] with each value in [low, high].
bool pair(Span<EValue*> stack, size_t i, int64_t low, int64_t high, int32_t* h, int32_t* w) {
  ArrayRef<int64_t> list;
  if (!int_list_arg(stack, i, &list) || list.size() != 2 || list[0] < low || list[0] > high || list[1] < low ||
      list[1] > high) {
    return false;
  }
  *h = static_cast<int32_t>(list[0]);
  *w = static_cast<int32_t>(list[1]);
  return true;
}

bool vector_of(const Tensor* t, ScalarType type, int32_t length) {
  return t != nullptr && t->scalar_type() == type && t->dim() == 1 && t->size(0) == length && contiguous(*t) &&
      has_data(*t);
}

// Reads and checks the arguments, resizes out: nullptr, or what is wrong.
const char* transpose_conv_args(Span<EValue*> stack, TransposeConvArgs* a) {
  if (stack.size() != 15) {  // 13 arguments, out, and out again as the returned value
    return "wrong number of arguments";
  }
  a->input = tensor_arg(stack, 0);
  a->weight = tensor_arg(stack, 2);
  a->bias = tensor_arg(stack, 3);
  a->multipliers = tensor_arg(stack, 4);
  a->shifts = tensor_arg(stack, 5);
  a->out = tensor_arg(stack, 13);
  if (!a->input || !a->weight || !a->bias || !a->multipliers || !a->shifts || !a->out ||
      !int_arg(stack, 1, &a->input_zero_point) || !int_arg(stack, 9, &a->output_zero_point) ||
      !int_arg(stack, 10, &a->activation_min) || !int_arg(stack, 11, &a->activation_max) ||
      !int_arg(stack, 12, &a->scratch_bytes) || !pair(stack, 6, 1, UINT16_MAX, &a->stride_h, &a->stride_w) ||
      !pair(stack, 7, 0, UINT16_MAX, &a->padding_h, &a->padding_w) ||
      !pair(stack, 8, 0, UINT16_MAX, &a->extra_h, &a->extra_w)) {
    return "bad arguments (stride >= 1, padding and output_padding >= 0, each at most 65535)";
  }
  if (a->extra_h >= a->stride_h || a->extra_w >= a->stride_w) {
    return "output_padding must be below the stride";
  }
  if (a->scratch_bytes < -1 || a->scratch_bytes > INT32_MAX) {
    return "bad scratch_bytes";
  }
  a->s16 = a->input->scalar_type() == ScalarType::Short;
  const ScalarType activations = a->s16 ? ScalarType::Short : ScalarType::Char;
  if (a->input->scalar_type() != activations || a->weight->scalar_type() != ScalarType::Char ||
      a->out->scalar_type() != activations) {
    return "int8 or int16 input, the same output type, int8 weight only";
  }
  if (a->s16 ? a->input_zero_point != 0 || a->output_zero_point != 0
             : a->input_zero_point < INT8_MIN || a->input_zero_point > INT8_MAX ||
              a->output_zero_point < INT8_MIN || a->output_zero_point > INT8_MAX) {
    return "zero point out of range (int8's, or 0 for int16)";
  }
  const int64_t lowest = a->s16 ? -INT16_MAX : INT8_MIN;  // cortex_m_util.h activation_min
  const int64_t highest = a->s16 ? INT16_MAX : INT8_MAX;
  if (a->activation_min < lowest || a->activation_max > highest || a->activation_min > a->activation_max) {
    return "bad activation range";
  }
  if (a->input->dim() != 4 || a->weight->dim() != 4 || a->out->dim() != 4) {
    return "4-D NHWC input, weight [C_out, KH, KW, C_in] and output only";
  }
  for (ssize_t d = 0; d < 4; ++d) {
    if (a->input->size(d) > UINT16_MAX || a->weight->size(d) > UINT16_MAX) {
      return "a dimension beyond 65535";
    }
  }
  if (!contiguous(*a->input) || !contiguous(*a->weight) || !contiguous(*a->out)) {
    return "contiguous tensors only";
  }
  a->n = static_cast<int32_t>(a->input->size(0));
  a->in_h = static_cast<int32_t>(a->input->size(1));
  a->in_w = static_cast<int32_t>(a->input->size(2));
  a->in_c = static_cast<int32_t>(a->input->size(3));
  a->out_c = static_cast<int32_t>(a->weight->size(0));
  a->kernel_h = static_cast<int32_t>(a->weight->size(1));
  a->kernel_w = static_cast<int32_t>(a->weight->size(2));
  if (a->n == 0 || a->in_h == 0 || a->in_w == 0 || a->in_c == 0 || a->kernel_h == 0 || a->kernel_w == 0 ||
      a->out_c == 0) {
    return "empty input or weight";
  }
  if (a->weight->size(3) != a->in_c) {
    return "weight [C_out, KH, KW, C_in] whose C_in is not the input's channels";
  }
  if (!vector_of(a->bias, a->s16 ? ScalarType::Long : ScalarType::Int, a->out_c) ||
      !vector_of(a->multipliers, ScalarType::Int, a->out_c) || !vector_of(a->shifts, ScalarType::Int, a->out_c)) {
    return "bias (int32; int64 for int16), multipliers and shifts (int32): vectors of the output channels";
  }
  const int32_t* multipliers = a->multipliers->const_data_ptr<int32_t>();
  const int32_t* shifts = a->shifts->const_data_ptr<int32_t>();
  for (int32_t c = 0; c < a->out_c; ++c) {
    if (multipliers[c] <= 0 || shifts[c] < -31 || shifts[c] > 0) {  // scales below 1, as the convolutions
      return "multiplier or shift out of range";
    }
  }
  const int64_t out_h = int64_t{a->in_h - 1} * a->stride_h - 2 * int64_t{a->padding_h} + a->kernel_h + a->extra_h;
  const int64_t out_w = int64_t{a->in_w - 1} * a->stride_w - 2 * int64_t{a->padding_w} + a->kernel_w + a->extra_w;
  if (out_h < 1 || out_w < 1 || out_h > UINT16_MAX || out_w > UINT16_MAX) {
    return "the padding leaves no output, or the output is beyond 65535";
  }
  a->out_h = static_cast<int32_t>(out_h);
  a->out_w = static_cast<int32_t>(out_w);
  a->column_bytes = a->s16 ? 0 : 4 * int64_t{a->kernel_h} * a->kernel_w * a->in_h * a->in_w * a->out_c;
  a->image_bytes = a->s16 ? 0 : 4 * out_h * out_w * a->out_c;
  if (a->column_bytes + a->image_bytes > INT32_MAX) {
    return "CMSIS-NN's buffers would exceed 2 GiB";
  }
  const int32_t sizes[4] = {a->n, a->out_h, a->out_w, a->out_c};
  if (!resize_out(*a->out, sizes, 4)) {
    return "bad output shape";
  }
  if (!has_data(*a->input) || !has_data(*a->weight) || !has_data(*a->out)) {
    return "tensor without data";
  }
  return nullptr;
}

// CMSIS-NN's s16 requantization (arm_nn_requantize_s64 after REDUCE_MULTIPLIER): the multiplier's top 15 bits, the
// product shifted to an int32 but for its last bit, which rounds half up.
int64_t rescale_s16(int64_t acc, int32_t multiplier, int32_t shift) {
  const int64_t reduced = multiplier < 0x7FFF0000 ? (int64_t{multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  const int32_t shifted = static_cast<int32_t>((acc * reduced) >> (14 - shift));
  return (int64_t{shifted} + 1) >> 1;
}

// The int16 transposed convolution: each output gathers the input pixels whose taps land on it.
void transpose_conv_s16(const TransposeConvArgs& a) {
  const int16_t* input = a.input->const_data_ptr<int16_t>();
  const int8_t* weight = a.weight->const_data_ptr<int8_t>();
  const int64_t* bias = a.bias->const_data_ptr<int64_t>();
  const int32_t* multipliers = a.multipliers->const_data_ptr<int32_t>();
  const int32_t* shifts = a.shifts->const_data_ptr<int32_t>();
  int16_t* out = a.out->mutable_data_ptr<int16_t>();
  for (int32_t b = 0; b < a.n; ++b) {
    const int16_t* image = input + int64_t{b} * a.in_h * a.in_w * a.in_c;
    for (int32_t y = 0; y < a.out_h; ++y) {
      for (int32_t x = 0; x < a.out_w; ++x) {
        for (int32_t o = 0; o < a.out_c; ++o) {
          int64_t acc = bias[o];
          // Tap i of input row iy lands on row iy * sh - ph + i, so y takes the taps with (y + ph - i) % sh == 0.
          for (int32_t i = 0; i < a.kernel_h; ++i) {
            const int32_t row = y + a.padding_h - i;
            if (row < 0 || row % a.stride_h != 0 || row / a.stride_h >= a.in_h) {
              continue;
            }
            for (int32_t j = 0; j < a.kernel_w; ++j) {
              const int32_t column = x + a.padding_w - j;
              if (column < 0 || column % a.stride_w != 0 || column / a.stride_w >= a.in_w) {
                continue;
              }
              const int16_t* pixel = image + (int64_t{row / a.stride_h} * a.in_w + column / a.stride_w) * a.in_c;
              const int8_t* taps = weight + ((int64_t{o} * a.kernel_h + i) * a.kernel_w + j) * a.in_c;
              for (int32_t c = 0; c < a.in_c; ++c) {
                acc += int32_t{pixel[c]} * taps[c];
              }
            }
          }
          int64_t q = rescale_s16(acc, multipliers[o], shifts[o]);
          q = q < a.activation_min ? a.activation_min : (q > a.activation_max ? a.activation_max : q);
          *out++ = static_cast<int16_t>(q);
        }
      }
    }
  }
}

void quantized_transpose_conv2d_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  TransposeConvArgs a;
  const char* wrong = transpose_conv_args(stack, &a);
  ETARM_KERNEL_CHECK(ctx, wrong == nullptr, "%s: %s", kName, wrong);
  cmsis_nn_context scratch = {nullptr, 0};
  const int32_t needed = static_cast<int32_t>(a.column_bytes + a.image_bytes);
  if (!cortex_m::recorded_scratch(
          ctx, kName, static_cast<int32_t>(a.scratch_bytes), needed, &scratch.buf, &scratch.size)) {
    return;
  }
  if (a.s16) {
    transpose_conv_s16(a);
    return;
  }
  // CMSIS-NN takes offsets added to the values (the negated input zero point) and, in padding_offsets, the padding
  // after the image (ph - output_padding_h, negative when output_padding exceeds the padding): its column-to-image
  // walk then covers exactly the input's H x W pixels.
  const cmsis_nn_transpose_conv_params params = {
      static_cast<int32_t>(-a.input_zero_point),
      static_cast<int32_t>(a.output_zero_point),
      {a.stride_w, a.stride_h},
      {a.padding_w, a.padding_h},
      {a.padding_w - a.extra_w, a.padding_h - a.extra_h},
      {1, 1},
      {static_cast<int32_t>(a.activation_min), static_cast<int32_t>(a.activation_max)}};
  const cmsis_nn_per_channel_quant_params quant = {
      const_cast<int32_t*>(a.multipliers->const_data_ptr<int32_t>()),
      const_cast<int32_t*>(a.shifts->const_data_ptr<int32_t>())};
  const cmsis_nn_dims input_dims = {a.n, a.in_h, a.in_w, a.in_c};
  const cmsis_nn_dims filter_dims = {a.out_c, a.kernel_h, a.kernel_w, a.in_c};
  const cmsis_nn_dims bias_dims = {1, 1, 1, a.out_c};
  const cmsis_nn_dims output_dims = {a.n, a.out_h, a.out_w, a.out_c};
  ETARM_KERNEL_CHECK(
      ctx, arm_transpose_conv_s8_get_buffer_size(&input_dims, &filter_dims, &output_dims) == a.column_bytes,
      "%s: CMSIS-NN's column buffer size is not the one computed here", kName);
  const cmsis_nn_context columns = {scratch.buf, static_cast<int32_t>(a.column_bytes)};
  const cmsis_nn_context image = {
      static_cast<int8_t*>(scratch.buf) + a.column_bytes, static_cast<int32_t>(a.image_bytes)};
  const arm_cmsis_nn_status status = arm_transpose_conv_s8(
      &columns, &image, &params, &quant, &input_dims, a.input->const_data_ptr<int8_t>(), &filter_dims,
      a.weight->const_data_ptr<int8_t>(), &bias_dims, a.bias->const_data_ptr<int32_t>(), &output_dims,
      a.out->mutable_data_ptr<int8_t>());
  ETARM_KERNEL_CHECK(ctx, status == ARM_CMSIS_NN_SUCCESS, "%s: CMSIS-NN failed (%d)", kName, status);
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_transpose_conv2d, out, quantized_transpose_conv2d_out)
} // namespace kernels
} // namespace etarm
