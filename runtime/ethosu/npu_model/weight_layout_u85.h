// Where each value of a decoded Ethos-U85 weight stream goes: the order Vela 5.2.0's U85
// encoder writes (ethos_u85_weight_encoder.cpp, one stream per weight decoder; the model
// handles one). The stream itself is the same mlw format as U55's (mlw_decoder.h).
//
//   for each block of OFM channels (OFM_BLK_DEPTH),
//    for each block of IFM channels (16 for part-kernel-first; 32 when the OFM micro-block
//        is 16 deep on U85-128/256 or the IFM is 32-bit; else 64), alternately first to
//        last and last to first from one OFM block to the next,
//     for each sub-kernel (at most 8 / dilation taps per axis, columns of sub-kernels outer),
//      for each IFM micro-block of the IFM block (8 channels for 16-bit part-kernel-first,
//          else the whole block; one channel for depthwise),
//       for each OFM micro-block of the OFM block,
//        [part-kernel-first, depthwise: for each stride phase (y, then x)]
//        for each tap of the sub-kernel (or of the phase), rows in order, each row
//            alternating direction (odd rows right to left),
//         for each group of 8 IFM channels of the micro-block (one channel for depthwise),
//          for each group of 4 OFM channels of the micro-block,
//           for each OFM channel of the group, for each IFM channel of the group:
//              the weight, or 0 where a channel does not exist;
//        then zeros for the taps that round the tap count up (to a multiple of 5 for 8-bit
//        part-kernel-first, 10 for 16-bit and depthwise), and for depthwise extra padding
//        per 10 taps on configurations above 256 MACs or with 16-bit IFMs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

struct WeightLayoutU85 {
  bool depthwise;
  bool part_kernel_first;
  bool ifm_16bit;
  int macs;       // the configuration's MACs (all cores)
  int ofm_depth;  // OFM channels
  int ifm_depth;  // IFM channels per OFM channel: 1 for depthwise
  int kernel_h;   // taps, without dilation
  int kernel_w;
  int dilation_x;
  int dilation_y;
  int stride_x;  // part-kernel-first and depthwise order taps by stride phase
  int stride_y;
  int ofm_block_depth;
  int ifm_block_depth;
  int ofm_ublock_depth;

  size_t dense_size() const {
    return static_cast<size_t>(ofm_depth) * kernel_h * kernel_w * ifm_depth;
  }
};

// How many values the stream holds.
size_t weight_stream_length_u85(const WeightLayoutU85& layout);

// Places the `length` decoded values into `dense`, indexed [ofm][ky][kx][ifm]. Padding
// positions must hold 0: anything else means the stream was not made for this operation.
Status place_weights_u85(const WeightLayoutU85& layout, const int16_t* stream, size_t length, int16_t* dense);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
