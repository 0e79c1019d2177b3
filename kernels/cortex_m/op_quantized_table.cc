// cortex_m::quantized_table.out(Tensor input, Tensor table, *, Tensor(a!) out) -> Tensor(a!)
//
// A function of one quantized tensor (sigmoid, tanh, hardswish, gelu, silu, exp, ...) looked up in a table the
// compiler computed ahead of time, any shape, out resized to the input's and of its type. The table says how:
//   int8 input, 256 int8 entries:       out = table[input + 128]                          (TOSA TABLE int8, exact)
//   int16 input, 513 int16 entries:     i = input + 32768, b = table[i >> 7], n = table[(i >> 7) + 1],
//                                       out = ((b << 7) + (n - b) * (i & 127) + 64) >> 7  (TOSA TABLE int16, then
//                                       its RESCALE by 2^-7, one rounding half up)
//   int16 input, 1025 + 128 k entries:  the 513 entries, one slot per segment s = i >> 7 (-1, or a patch j < k), then
//                                       k patches of 128 exact results: slot j reads table[1025 + 128 j + (i & 127)],
//                                       slot -1 interpolates as above (patched where interpolating misses)
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
constexpr ssize_t kSegment = ssize_t{1} << kSegmentBits;
constexpr ssize_t kSegments = kInt16Interpolated - 1;
constexpr ssize_t kPatchesStart = kInt16Interpolated + kSegments;

// 1025 + 128 k entries, k >= 1, below the exact table's size.
bool patched_size(ssize_t entries) {
  return entries > kPatchesStart && entries < kInt16Exact && (entries - kPatchesStart) % kSegment == 0;
}

// Every segment slot of a patched table is -1 or the index of one of its patches.
bool valid_slots(const int16_t* table, ssize_t entries) {
  const ssize_t patches = (entries - kPatchesStart) / kSegment;
  for (ssize_t s = 0; s < kSegments; ++s) {
    const int16_t slot = table[kInt16Interpolated + s];
    if (slot < -1 || slot >= patches) {
      return false;
    }
  }
  return true;
}

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

void patched_s16(const int16_t* in, const int16_t* table, int16_t* out, ssize_t count) {
  for (ssize_t i = 0; i < count; ++i) {
    const int32_t offset = int32_t{in[i]} + 32768;
    const int16_t slot = table[kInt16Interpolated + (offset >> kSegmentBits)];
    if (slot < 0) {
      interpolate_s16(in + i, table, out + i, 1);
    } else {
      const int16_t value = table[kPatchesStart + slot * kSegment + (offset & (kSegment - 1))];
      out[i] = value < -INT16_MAX ? static_cast<int16_t>(-INT16_MAX) : value;
    }
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
          (s16 ? entries == kInt16Interpolated || entries == kInt16Exact || patched_size(entries)
               : entries == kInt8Entries),
      "%s: the table must be 1-D of the input's type with 256 entries (int8), or 513, 65536 or 1025 + 128 k (int16)",
      kName);
  ETARM_KERNEL_CHECK(
      ctx, !s16 || !patched_size(entries) || valid_slots(table->const_data_ptr<int16_t>(), entries),
      "%s: a patched table's segment slots must be -1 or the index of one of its patches", kName);
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
  } else if (patched_size(entries)) {
    patched_s16(input->const_data_ptr<int16_t>(), table->const_data_ptr<int16_t>(), out->mutable_data_ptr<int16_t>(),
                input->numel());
  } else {
    look_up_s16(input->const_data_ptr<int16_t>(), table->const_data_ptr<int16_t>(), out->mutable_data_ptr<int16_t>(),
                input->numel());
  }
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_table, out, quantized_table_out)
} // namespace kernels
} // namespace etarm
