// Decoding Vela's "mlw" weight streams (Ethos-U55/U65): the compressed form the NPU's
// weight decoder reads, holding 9-bit signed weights in the order the MACs consume them.
//
// The stream is read least-significant bit first. It is a sequence of slices, each starting
// with a header: ZDIV (3 bits; 7 ends the stream, then padding to a byte boundary follows;
// 6 means no zero runs, 0..3 the Golomb-Rice divisor of the zero-run lengths), SLICELEN - 1
// (15 bits: how many weights), WDIV (3 bits: the weights' Golomb-Rice divisor 0..5, or 7 for
// uncompressed indices), WTRUNC (1 bit: quotients are at most 2), NEWPAL (1 bit). A new
// palette gives DIROFS (5 bits), PALSIZE (5 bits, 0 or size - 1), PALBITS - 2 (3 bits) and
// PALSIZE entries of PALBITS each; the first slice after the start or an end marker must
// carry one. Weight indices below the palette size select a palette entry, the others are
// direct values (index - palette size + DIROFS); a value v stands for the weight
// (v & 1 ? -(v >> 1) : v >> 1).
//
// The slice body interleaves two Golomb-Rice coded sequences in chunks: the weight indices
// and, with zero runs, the number of zeros before the first weight (new palette only) and
// after each weight. A chunk carries the unary quotient parts of up to 12 values of each
// sequence, in this order: the weights' 12-bit WUNARY0 (a 1 per quotient step of at least
// 1; absent when uncompressed), the zero runs' ZUNARY (12 bits, 8 for ZDIV 3: a 1 per unit
// of quotient, a 0 ending each value), the weights' WUNARY1 (one bit per 1 of WUNARY0: a
// step of 2, which without WTRUNC continues the quotient). Then come the remainders of the
// previous chunk's values, weights first. The weights may run at most 8 values ahead of
// the zero runs; the zero runs never run ahead of the weights.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// Working memory for one slice: its weight indices and zero runs.
struct MlwScratch {
  static constexpr size_t kMaxSliceWeights = 1 << 15;
  uint16_t weights[kMaxSliceWeights];
  uint32_t zero_runs[kMaxSliceWeights + 1];
};

// Decodes `data[0, size)` into `out`: weights in stream order, until the stream ends or
// `wanted` weights are out (what follows them is not read). *count is how many were decoded.
// An error names the bit offset where the stream stops making sense.
Status decode_mlw(const uint8_t* data, size_t size, int16_t* out, size_t wanted, size_t* count,
                  MlwScratch* scratch);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
