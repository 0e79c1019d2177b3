// Where each value of a decoded weight stream goes: the order in which the Ethos-U55/U65
// MACs consume weights, and so the order Vela's encoder writes them.
//
// Per core (OFM channels are dealt round-robin to the cores: core s takes s, s + cores, ...):
//   for each block of OFM channels (the OFM block depth, divided among the cores),
//    for each block of IFM channels (32, or 16 for part-kernel-first or 16-bit IFMs;
//                                    one pass for depthwise),
//     for each sub-kernel (the kernel cut into pieces of at most 8 / dilation taps per axis),
//      [part-kernel-first: for each IFM micro-block of the IFM block]
//       for each OFM micro-block of the OFM block,
//        for each tap of the sub-kernel, row-major (the tap count rounded up to a multiple
//                                   of 4 for depthwise and part-kernel-first - 2 with
//                                   16-bit IFMs - the extra taps are zeros),
//         [depth-first: for each IFM micro-block of the IFM block]
//          for each OFM channel of the micro-block,
//           for each IFM channel of the micro-block (one for depthwise):
//              the weight, or 0 where a channel or tap does not exist.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

struct WeightLayout {
  bool depthwise;
  bool part_kernel_first;
  bool ifm_16bit;
  int ofm_depth;  // OFM channels of the operation (all cores)
  int ifm_depth;  // IFM channels per OFM channel: 1 for depthwise
  int kernel_h;   // taps, without dilation
  int kernel_w;
  int dilation_x;
  int dilation_y;
  int ofm_block_depth;
  int ofm_ublock_depth;
  int ifm_ublock_depth;
  int cores;

  // Number of OFM channels core `core` computes.
  int core_ofm_depth(int core) const {
    return (ofm_depth + cores - 1 - core) / cores;
  }
  size_t dense_size() const {
    return static_cast<size_t>(ofm_depth) * kernel_h * kernel_w * ifm_depth;
  }
};

// How many values the weight stream of core `core` holds.
size_t weight_stream_length(const WeightLayout& layout, int core);

// Places the `length` values of core `core`'s decoded stream into `dense`, indexed
// [ofm][ky][kx][ifm] (ifm 0 only for depthwise). Values the layout marks as padding must be
// zero: anything else means the stream was not made for this operation.
Status place_weights(const WeightLayout& layout, int core, const int16_t* stream, size_t length, int16_t* dense);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
