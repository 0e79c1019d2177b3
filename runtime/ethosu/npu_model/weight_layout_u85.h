// Where each value of a decoded Ethos-U85 weight stream goes: the order Vela 5.2.0's U85
// encoder writes (ethos_u85_weight_encoder.cpp, one stream per weight decoder). The stream
// itself is the same mlw format as U55's (mlw_decoder.h) or the fast format (fwd_decoder.h).
//
//   for each block of OFM channels (OFM_BLK_DEPTH),
//    for each block of IFM channels (16 for part-kernel-first; 32 when the OFM micro-block
//        is 16 deep on U85-128/256 with dense weights or the IFM is 32-bit; 128 for 2:4
//        sparse weights with 8-bit IFMs; else 64), alternately first to last and last to
//        first from one OFM block to the next,
//     for each sub-kernel (at most 8 / dilation taps per axis, columns of sub-kernels outer),
//      for each IFM micro-block of the IFM block (8 channels for dense 16-bit
//          part-kernel-first, else the whole block; one channel for depthwise),
//       for each OFM micro-block of the OFM block,
//        [part-kernel-first, depthwise: for each stride phase (y, then x)]
//        for each tap of the sub-kernel (or of the phase), rows in order, each row
//            alternating direction (odd rows right to left),
//         for each group of 8 IFM channels of the micro-block (16 with 2:4 sparse weights,
//             one channel for depthwise),
//          for each group of 4 OFM channels of the micro-block that belongs to this
//              decoder (with N decoders, decoder d takes groups d, d + N, ...),
//           for each OFM channel of the group, for each IFM channel of the group:
//              the weight, or 0 where a channel does not exist;
//        then zeros for the taps that round the tap count up (to a multiple of 5 for dense
//        8-bit part-kernel-first, 10 for 16-bit, 2:4 sparse and depthwise), and for
//        depthwise extra padding per 10 taps on configurations above 256 MACs or with
//        16-bit IFMs (padding shared equally by the decoders).
//
// 2:4 sparse weights (WEIGHT_FORMAT sparsity 1) are stored whole, zeros included: no index
// of the kept weights is encoded. Each run of 4 IFM channels of one tap and OFM channel (4
// consecutive stream values, starting at an IFM channel that is a multiple of 4) holds at
// least 2 zeros, and every weight is within [-127, 127]; the MAC array skips the zeros.
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
  bool sparse;       // 2:4 sparse weights
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
  int decoders;      // weight decoders the weights are split over (one stream each)
  int decoder;       // which one's stream this is

  size_t dense_size() const {
    return static_cast<size_t>(ofm_depth) * kernel_h * kernel_w * ifm_depth;
  }
};

// How many values the stream (of one decoder) holds.
size_t weight_stream_length_u85(const WeightLayoutU85& layout);

// With several decoders, the fast weight format holds one stream: the decoders' streams
// interleaved, this many values of decoder 0, then of decoder 1, ..., then of 0 again.
// (The standard format gives each decoder its own stream: WEIGHT_BASE, WEIGHT1_BASE, ...)
size_t fast_weight_block_u85(const WeightLayoutU85& layout);

// Places the `length` decoded values of this decoder's stream into `dense`, indexed
// [ofm][ky][kx][ifm] (the OFM channels of other decoders are left alone). Padding positions
// must hold 0, and sparse streams must keep the 2:4 pattern: anything else means the stream
// was not made for this operation.
Status place_weights_u85(const WeightLayoutU85& layout, const int16_t* stream, size_t length, int16_t* dense);

// One convolution's weights as the model read them, for a test that re-encodes them with
// Vela's encoder and compares the bytes: the layout (`decoder` unused), the encoded streams
// (standard format: one per decoder; fast format: one for all decoders) and the decoded
// weights [ofm][ky][kx][ifm] (depthwise: [channel][ky][kx][0]).
struct DecodedWeightsU85 {
  static constexpr int kMaxStreams = 4;
  WeightLayoutU85 layout;
  bool fast;  // the fast weight format
  int streams;
  const uint8_t* bytes[kMaxStreams];
  size_t lengths[kMaxStreams];
  const int16_t* dense;
};
// Told of every U85 convolution's weights once decoded (NpuModel::set_weight_observer_u85).
class WeightObserverU85 {
 public:
  virtual void weights_decoded(const DecodedWeightsU85& weights) = 0;

 protected:
  ~WeightObserverU85() = default;
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
