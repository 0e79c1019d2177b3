// cortex_m::quantized_table.out(Tensor input, Tensor table, *, Tensor(a!) out) -> Tensor(a!)
//
// A function of one quantized tensor (sigmoid, tanh, hardswish, gelu, silu, exp, ...) looked up in a table the
// compiler computed ahead of time, any shape, out resized to the input's and of its type. The table says how:
//   int8 input, 256 int8 entries:       out = table[input + 128]                          (TOSA TABLE int8, exact)
//   int16 input, 513 int16 entries:     i = input + 32768, b = table[i >> 7], n = table[(i >> 7) + 1],
//                                       out = ((b << 7) + (n - b) * (i & 127) + 64) >> 7  (TOSA TABLE int16, then
//                                       its RESCALE by 2^-7, one rounding half up)
//   int16 input, 65536 int16 entries:   out = table[input + 32768]                        (exact)
// int16 results are at least -32767, the a16w8 range. CMSIS-NN has no generic table, so this is the project's.
// python/etarm/cortex_m/ops/quantized_table.py (the same arithmetic), passes/quantized_activations_as_tables.py.
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

constexpr const char* kName = "cortex_m::quantized_table.out";
constexpr ssize_t kInt8Entries = 256;
constexpr ssize_t kInt16Interpolated = 513;
constexpr ssize_t kInt16Exact = 65536;
constexpr int kSegmentBits = 7;

void look_up_s8(const int8_t* in, const int8_t* table, int8_t* out, ssize_t count) {
  for (ssize_t i = 0; i < count; ++i) {
    out[i] = table[in[i] + 128];
  }
}

void interpolate_s16(const int16_t* in, const int16_t* table, int16_t* out, ssize_t count) {
  constexpr int32_t kLow = (1 << kSegmentBits) - 1;
  for (ssize_t i = 0; i < count; ++i) {
    const int32_t offset = int32_t{in[i]} + 32768;
    const int32_t base = table[offset >> kSegmentBits];
    const int32_t next = table[(offset >> kSegmentBits) + 1];
    // |base| * 128 and the slope (< 2^16) times 127 stay far inside int32.
    const int32_t interpolated = base * (1 << kSegmentBits) + (next - base) * (offset & kLow);
    const int32_t value = (interpolated + (1 << (kSegmentBits - 1))) >> kSegmentBits;
    out[i] = static_cast<int16_t>(value < -INT16_MAX ? -INT16_MAX : value);
  }
}

void look_up_s16(const int16_t* in, const int16_t* table, int16_t* out, ssize_t count) {
  for (ssize_t i = 0; i < count; ++i) {
    const int16_t value = table[int32_t{in[i]} + 32768];
    out[i] = value < -INT16_MAX ? static_cast<int16_t>(-INT16_MAX) : value;
  }
}

void quantized_table_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  const Tensor* input = tensor_arg(stack, 0);
  const Tensor* table = tensor_arg(stack, 1);
  Tensor* out = tensor_arg(stack, 2);
  ETARM_KERNEL_CHECK(ctx, stack.size() == 4 && input && table && out, "%s: bad arguments", kName);
  const ScalarType type = input->scalar_type();
  ETARM_KERNEL_CHECK(
      ctx, (type == ScalarType::Char || type == ScalarType::Short) && out->scalar_type() == type,
      "%s: an int8 or int16 input and an output of its type only", kName);
  const ssize_t entries = table->numel();
  const bool s16 = type == ScalarType::Short;
  ETARM_KERNEL_CHECK(
      ctx, table->scalar_type() == type && table->dim() == 1 && contiguous(*table) && has_data(*table) &&
          (s16 ? entries == kInt16Interpolated || entries == kInt16Exact : entries == kInt8Entries),
      "%s: the table must be 1-D of the input's type with 256 entries (int8) or 513 or 65536 (int16)", kName);
  ETARM_KERNEL_CHECK(
      ctx, contiguous(*input) && contiguous(*out) && input->dim() == out->dim() &&
          input->dim() <= static_cast<ssize_t>(kMaxDim),
      "%s: contiguous input and output of one rank only", kName);
  int32_t sizes[kMaxDim];
  for (ssize_t d = 0; d < input->dim(); ++d) {
    sizes[d] = static_cast<int32_t>(input->size(d));
  }
  ETARM_KERNEL_CHECK(ctx, resize_out(*out, sizes, input->dim()), "%s: bad output shape", kName);
  if (input->numel() == 0) {
    return;
  }
  ETARM_KERNEL_CHECK(ctx, has_data(*input) && has_data(*out), "%s: tensor without data", kName);
  if (!s16) {
    look_up_s8(input->const_data_ptr<int8_t>(), table->const_data_ptr<int8_t>(), out->mutable_data_ptr<int8_t>(),
               input->numel());
  } else if (entries == kInt16Interpolated) {
    interpolate_s16(input->const_data_ptr<int16_t>(), table->const_data_ptr<int16_t>(),
                    out->mutable_data_ptr<int16_t>(), input->numel());
  } else {
    look_up_s16(input->const_data_ptr<int16_t>(), table->const_data_ptr<int16_t>(), out->mutable_data_ptr<int16_t>(),
                input->numel());
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_table, out, quantized_table_out)
} // namespace kernels
} // namespace etarm
