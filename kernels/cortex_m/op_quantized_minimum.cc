// cortex_m::quantized_minimum.out(Tensor self, int self_zero_point, int self_multiplier, int self_shift,
//     Tensor other, int other_zero_point, int other_multiplier, int other_shift, int output_zero_point,
//     *, Tensor(a!) out) -> Tensor(a!)
//
// The smaller of the two int8 operands, each rescaled into the output's steps (TOSA RESCALE, single rounding),
// shapes broadcast; cortex_m_util.h quantized_extremum_out has the semantics. Written in the project:
// the CMSIS-NN snapshot has no arm_minimum_s8.
#include "kernels/cortex_m/cortex_m_util.h"

namespace etarm {
namespace kernels {
namespace {

void quantized_minimum_out(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  cortex_m::quantized_extremum_out(ctx, stack, /*largest=*/false, "cortex_m::quantized_minimum.out");
}

} // namespace
ETARM_KERNEL(cortex_m, quantized_minimum, out, quantized_minimum_out)
} // namespace kernels
} // namespace etarm
