#include "runtime/ethosu/npu_model/weight_layout.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

int round_up(int v, int m) {
  return (v + m - 1) / m * m;
}
int min_int(int a, int b) {
  return a < b ? a : b;
}

// Calls visit(ofm, ky, kx, ifm) for every stream position of core `core` in order, with
// ofm < 0 for a padding position. Stops early (returning false) when visit returns false.
template <typename Visit>
bool walk(const WeightLayout& l, int core, Visit visit) {
  const int ofm_depth = l.core_ofm_depth(core);
  const int block_depth = (l.ofm_block_depth + l.cores - 1 - core) / l.cores;
  const int ifm_block = l.part_kernel_first || l.ifm_16bit ? 16 : 32;
  const int tap_rounding = l.depthwise ? 4 : (l.part_kernel_first ? (l.ifm_16bit ? 2 : 4) : 1);
  const int sub_h_max = 8 / l.dilation_y;
  const int sub_w_max = 8 / l.dilation_x;
  const int ifm_ublock_channels = l.depthwise ? 1 : l.ifm_ublock_depth;
  if (block_depth <= 0) {
    return true;
  }
  for (int ofm_block = 0; ofm_block < ofm_depth; ofm_block += block_depth) {
    const int ofm_block_size = min_int(block_depth, ofm_depth - ofm_block);
    for (int ifm_block_start = 0; ifm_block_start < (l.depthwise ? 1 : l.ifm_depth); ifm_block_start += ifm_block) {
      int ifm_block_size = ifm_block;
      if (l.depthwise) {
        ifm_block_size = l.ifm_ublock_depth;
      } else if (l.part_kernel_first) {
        ifm_block_size = min_int(ifm_block, l.ifm_depth - ifm_block_start);
      }
      for (int sub_y = 0; sub_y < l.kernel_h; sub_y += sub_h_max) {
        const int sub_h = min_int(l.kernel_h - sub_y, sub_h_max);
        for (int sub_x = 0; sub_x < l.kernel_w; sub_x += sub_w_max) {
          const int sub_w = min_int(l.kernel_w - sub_x, sub_w_max);
          const int taps = round_up(sub_w * sub_h, tap_rounding);
          const int outer_depth = l.part_kernel_first ? ifm_block_size : 1;
          const int inner_depth = l.part_kernel_first ? 1 : ifm_block_size;
          for (int ifm_outer = 0; ifm_outer < outer_depth; ifm_outer += l.ifm_ublock_depth) {
            for (int ofm_ublock = 0; ofm_ublock < ofm_block_size; ofm_ublock += l.ofm_ublock_depth) {
              for (int tap = 0; tap < taps; ++tap) {
                const int kx = tap % sub_w;
                const int ky = tap / sub_w;
                for (int ifm_inner = 0; ifm_inner < inner_depth; ifm_inner += l.ifm_ublock_depth) {
                  for (int oz = 0; oz < l.ofm_ublock_depth; ++oz) {
                    for (int iz = 0; iz < ifm_ublock_channels; ++iz) {
                      const int ifm = ifm_block_start + ifm_outer + ifm_inner + iz;
                      const int ofm = ofm_block + ofm_ublock + oz;
                      const bool real = ifm < l.ifm_depth && ofm < ofm_depth && ky < sub_h;
                      if (!visit(real ? core + ofm * l.cores : -1, sub_y + ky, sub_x + kx, ifm)) {
                        return false;
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  return true;
}

}  // namespace

size_t weight_stream_length(const WeightLayout& layout, int core) {
  size_t n = 0;
  walk(layout, core, [&](int, int, int, int) {
    ++n;
    return true;
  });
  return n;
}

Status place_weights(const WeightLayout& l, int core, const int16_t* stream, size_t length, int16_t* dense) {
  size_t pos = 0;
  size_t stray = SIZE_MAX;
  const bool complete = walk(l, core, [&](int ofm, int ky, int kx, int ifm) {
    if (pos >= length) {
      return false;
    }
    const int16_t w = stream[pos];
    if (ofm >= 0) {
      dense[((static_cast<size_t>(ofm) * l.kernel_h + ky) * l.kernel_w + kx) * l.ifm_depth + ifm] = w;
    } else if (w != 0 && stray == SIZE_MAX) {
      stray = pos;
    }
    ++pos;
    return true;
  });
  if (!complete || pos != length) {
    return Status::error(Fault::kBadWeights, "core %d's weight stream holds %zu weights; the operation needs %zu",
                         core, length, weight_stream_length(l, core));
  }
  if (stray != SIZE_MAX) {
    return Status::error(Fault::kBadWeights, "core %d's weight stream has a non-zero value at padding position %zu",
                         core, stray);
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
