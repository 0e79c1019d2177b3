#include "runtime/ethosu/npu_model/weight_layout_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr int kInterleave = 4;  // OFM channels per group

int round_up(int v, int multiple) {
  return (v + multiple - 1) / multiple * multiple;
}

// IFM channels per IFM micro-block.
int ifm_ublock_depth_of(const WeightLayoutU85& l) {
  return l.depthwise ? 1 : (l.part_kernel_first && l.ifm_16bit && !l.sparse ? 8 : l.ifm_block_depth);
}

// What each sub-kernel's tap count is rounded up to.
int tap_round_of(const WeightLayoutU85& l) {
  return l.depthwise ? 10 : l.part_kernel_first ? (l.ifm_16bit || l.sparse ? 10 : 5) : 1;
}

// Calls visit(dense index or -1 for padding) for every stream position, in stream order.
template <typename Visit>
void walk(const WeightLayoutU85& l, Visit visit) {
  const int ifm_ublock_depth = ifm_ublock_depth_of(l);
  const int tap_round = tap_round_of(l);
  // Depth-first streams ignore the stride; part-kernel-first and depthwise group taps by phase.
  const int stride_x = l.part_kernel_first || l.depthwise ? l.stride_x : 1;
  const int stride_y = l.part_kernel_first || l.depthwise ? l.stride_y : 1;
  const int decomp_x = 8 / l.dilation_x;
  const int decomp_y = 8 / l.dilation_y;
  const int dw_padding = (!l.ifm_16bit && l.macs <= 256) ? 0 : (l.macs <= 512 ? 2 : 6);
  const int ifm_step = l.depthwise ? 1 : l.sparse ? 16 : 8;
  // Each decoder's share of the micro-block's OFM channels and of its padding.
  const int ofm_ublock_share = l.ofm_ublock_depth / l.decoders;
  const int ifm_blocks_end = l.depthwise ? 1 : l.ifm_depth;

  int ifm_block_z = 0;
  int ifm_inc = -l.ifm_block_depth;
  for (int ofm_block_z = 0; ofm_block_z < l.ofm_depth; ofm_block_z += l.ofm_block_depth) {
    ifm_inc = -ifm_inc;
    const int ofm_block = l.ofm_block_depth < l.ofm_depth - ofm_block_z ? l.ofm_block_depth : l.ofm_depth - ofm_block_z;
    for (int z = ifm_block_z; z < ifm_blocks_end && z >= 0; z += ifm_inc) {
      ifm_block_z = z;
      const int ifm_block = l.ifm_block_depth < l.ifm_depth - z ? l.ifm_block_depth : l.ifm_depth - z;
      for (int sub_x = 0; sub_x < l.kernel_w; sub_x += decomp_x) {
        const int sub_w = l.kernel_w - sub_x < decomp_x ? l.kernel_w - sub_x : decomp_x;
        for (int sub_y = 0; sub_y < l.kernel_h; sub_y += decomp_y) {
          const int sub_h = l.kernel_h - sub_y < decomp_y ? l.kernel_h - sub_y : decomp_y;
          const int ifm_outer_end = l.depthwise ? 1 : ifm_block;
          for (int ifm_outer = 0; ifm_outer < ifm_outer_end; ifm_outer += ifm_ublock_depth) {
            for (int ofm_outer = 0; ofm_outer < ofm_block; ofm_outer += l.ofm_ublock_depth) {
              int taps_left = round_up(sub_w * sub_h, tap_round);
              for (int phase_y = 0; phase_y < stride_y; ++phase_y) {
                const int phase_h = (sub_h + stride_y - 1 - phase_y) / stride_y;
                for (int phase_x = 0; phase_x < stride_x; ++phase_x) {
                  const int phase_w = (sub_w + stride_x - 1 - phase_x) / stride_x;
                  for (int ky = 0; ky < phase_h; ++ky) {
                    for (int kx = 0; kx < phase_w; ++kx) {
                      const int x = ky % 2 == 0 ? kx : phase_w - 1 - kx;
                      --taps_left;
                      const int wx = sub_x + phase_x + x * stride_x;
                      const int wy = sub_y + phase_y + ky * stride_y;
                      for (int ifm_inner = 0; ifm_inner < ifm_ublock_depth; ifm_inner += ifm_step) {
                        for (int ofm_group = l.decoder * kInterleave; ofm_group < l.ofm_ublock_depth;
                             ofm_group += kInterleave * l.decoders) {
                          for (int o = 0; o < kInterleave; ++o) {
                            for (int i = 0; i < ifm_step; ++i) {
                              const int ifm_z = z + ifm_outer + ifm_inner + i;
                              const int ofm_z = ofm_block_z + ofm_outer + ofm_group + o;
                              const bool exists = ifm_z < l.ifm_depth && ofm_z < l.ofm_depth;
                              visit(exists ? ((static_cast<long>(ofm_z) * l.kernel_h + wy) * l.kernel_w + wx) *
                                                     l.ifm_depth +
                                                 ifm_z
                                           : -1L);
                            }
                          }
                        }
                      }
                      if (l.depthwise && taps_left % tap_round == 0) {
                        for (int p = 0; p < dw_padding * ofm_ublock_share; ++p) visit(-1L);
                      }
                    }
                  }
                }
              }
              if (taps_left > 0) {
                const int pad = (taps_left + (l.depthwise ? dw_padding : 0)) * ifm_ublock_depth * ofm_ublock_share;
                for (int p = 0; p < pad; ++p) visit(-1L);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

size_t fast_weight_block_u85(const WeightLayoutU85& layout) {
  return static_cast<size_t>(layout.ofm_ublock_depth / layout.decoders) * ifm_ublock_depth_of(layout) *
         tap_round_of(layout);
}

size_t weight_stream_length_u85(const WeightLayoutU85& layout) {
  size_t n = 0;
  walk(layout, [&](long) { ++n; });
  return n;
}

Status place_weights_u85(const WeightLayoutU85& layout, const int16_t* stream, size_t length, int16_t* dense) {
  size_t pos = 0;
  size_t bad = length;  // the first padding position holding a non-zero value
  walk(layout, [&](long index) {
    if (pos < length) {
      if (index >= 0) {
        dense[index] = stream[pos];
      } else if (stream[pos] != 0 && bad == length) {
        bad = pos;
      }
    }
    ++pos;
  });
  if (pos != length) {
    return Status::error(Fault::kBadWeights, "the weight stream holds %zu values; the operation needs %zu", length,
                         pos);
  }
  if (bad != length) {
    return Status::error(Fault::kBadWeights, "weight %zu of the stream is padding but holds %d", bad,
                         static_cast<int>(stream[bad]));
  }
  if (layout.sparse) {
    // Every 4 values are 4 IFM channels of one tap and OFM channel (the stream's groups of
    // 16 IFM channels start at multiples of 4): at most 2 of them may be used.
    for (size_t q = 0; q < length; q += 4) {
      int kept = 0;
      for (size_t i = q; i < q + 4 && i < length; ++i) {
        if (stream[i] < -127 || stream[i] > 127) {
          return Status::error(Fault::kBadWeights, "weight %zu of a 2:4 sparse stream is %d, outside [-127, 127]", i,
                               static_cast<int>(stream[i]));
        }
        kept += stream[i] != 0 ? 1 : 0;
      }
      if (kept > 2) {
        return Status::error(Fault::kBadWeights, "weights %zu..%zu of a 2:4 sparse stream hold %d non-zero values", q,
                             q + 3, kept);
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
