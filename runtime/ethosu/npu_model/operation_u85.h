// What Ethos-U85 operations share (the U85 counterparts of operation.h): feature maps and the
// output stage read from U85's register fields, into the structures the U55 operations use
// (FeatureMap, OutputStage), so the arithmetic and addressing code is shared. The operations
// themselves live one per file (elementwise_u85.cc, pooling_u85.cc, convolution_u85.cc,
// matmul_u85.cc, resize_u85.cc, dma_u85.cc).
#pragma once

#include "runtime/ethosu/npu_model/feature_map.h"
#include "runtime/ethosu/npu_model/isa_u85.h"
#include "runtime/ethosu/npu_model/operation.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// IFM, IFM2 or OFM from U85's registers: region, tiles, strides, precision, layout, zero
// point. A chained operand (storage CHAINED) has its precision and zero point but no data: its
// values are in the chaining buffer its region field names (chain_buffers.h). Other storage
// (3x1 tiles) fails as not modelled; an OFM without storage has no data either. A 64-bit
// feature map (signed only: Vela's int48 accumulators in memory) fails as not modelled unless
// `wide` says the caller reads or writes it with read_wide/write_wide.
Status feature_map_u85(const RegisterFile& regs, const Memory& memory, Operand operand, FeatureMap* out,
                       bool wide = false);
bool is_chained_u85(const RegisterFile& regs, Operand operand);

// The OFM side of an operation from U85's registers: OFM_SCALE (multiplier, shift and one of
// U85's rounding modes), the OFM zero point, ACTIVATION's clip (ACTIVATION_MIN/MAX read as
// 16-bit values of the OFM's signedness; or no clip: an 8- or 16-bit OFM keeps the result's
// low bits, a 32-bit one saturates) and its int8 look-up
// tables (LUT_S8_S8: table n is the n-th 256 bytes of the LUT RAM; LUT_S16_S32 and LUT_S16_S16:
// the whole 2 KiB as OutputStage::lut_s16_s32 reads it). `wide`: a 64-bit OFM is allowed
// (feature_map_u85), its values finished with OutputStage::finish_wide.
Status output_stage_u85(const OperationContext& ctx, OutputStage* out, bool wide = false);

// Stores the operation's dense h x w x c result into the OFM, transposed as OFM_PRECISION
// says: WCH stores the operation's element (y, x, c) at OFM (x, c, y), and so on for WHC,
// HCW, CHW and CWH (how Vela turns NCHW into NHWC and implements permutes); or reversed along
// H, W or C within the operation's OFM (Vela's REVERSE: element y of H rows lands in row
// H - 1 - y).
// A chained OFM goes to its chaining buffer instead; an OFM stored to memory ends the chain;
// an OFM without storage (accumulator output disabled) is not written.
Status store_ofm_u85(const OperationContext& ctx, const FeatureMap& ofm, const OfmShape& shape, const int32_t* values);
// The same for a 64-bit OFM in memory, neither transposed nor reversed (how Vela writes int48
// accumulators out): anything else fails as not modelled.
Status store_wide_ofm_u85(const OperationContext& ctx, const FeatureMap& ofm, const OfmShape& shape,
                          const int64_t* values);

// A rounding mode of U85's OFM/IFM scale registers as the shared scaling code knows it: an
// error for the modes the model does not implement yet.
Status round_mode_u85(uint32_t ofm_round_mode, RoundMode* out);

// The per-channel records of SCALE_BASE/SCALE_LENGTH: a 32-bit bias and 31-bit scale, or with
// ACC_FORMAT's 48-bit accumulators a 48-bit bias and 15-bit scale; then the shift.
Status load_scales_u85(const OperationContext& ctx, int64_t channels, ChannelScale** out);

// ACC_FORMAT's accumulator modes (accumulator_modes_u85.cc). The accumulators an h x w x c
// operation starts from, one per OFM element: nullptr for RESET (0); for KEEP those the
// previous operation left (accumulators.h: the sums before the bias and the output stage,
// which apply only where an OFM is written); for IFM2 IFM2's elements minus its zero point
// (8 to 64 bits: a 64-bit element must fit the accumulators ACC_FORMAT names).
Status initial_accumulators_u85(const OperationContext& ctx, const OfmShape& ofm, const int64_t** out);
// Output DISABLE (the accumulators kept for a following KEEP, nothing written): Vela pairs it
// with an OFM without storage; with a stored or chained OFM it fails as not modelled.
Status check_accumulator_output_u85(const RegisterFile& regs);

// The operations.
Status run_elementwise_u85(const OperationContext& ctx, u85::ElementwiseMode mode);
Status run_dma_u85(const OperationContext& ctx);
Status run_pooling_u85(const OperationContext& ctx, u85::PoolMode mode);
Status run_convolution_u85(const OperationContext& ctx, bool depthwise);
Status run_matmul_u85(const OperationContext& ctx);
Status run_resize_u85(const OperationContext& ctx, u85::ResizeMode mode);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
