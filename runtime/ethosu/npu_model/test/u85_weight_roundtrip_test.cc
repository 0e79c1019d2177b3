// The proof of the model's Ethos-U85 weight decoding (weight_layout_u85.h, mlw_decoder.h,
// fwd_decoder.h) against Vela 5.2.0's own U85 encoder (regor's ethos_u85_weight_encoder.cpp
// and mlw codec, built from Vela's source distribution: //third_party/vela_sdist). Every
// convolution of every case's streams runs on the model; the weights it decoded go back
// through Vela's encoder with the parameters the model read from the registers (micro-block
// and block depths, traversal, stride, dilation, 8- or 16-bit IFM, 2:4 sparsity, standard or
// fast format, the configuration's weight decoders and MACs), and the bytes must be the
// stream's own, byte for byte, for every decoder's stream. A difference names the case, the
// partition and the command. That the comparison can fail is checked too: one weight
// changed gives other bytes.
//
// Arguments: CASE files, or a .txt file naming case files (one per line) beside it.
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "architecture/ethosu85/ethos_u85_weight_encoder.hpp"
#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/isa_u85.h"
#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

// The weights' streams as Vela's encoder writes them for `w`'s layout and weights (one per
// weight decoder in the standard format, one in all in the fast format). False, with
// *error, when the encoder refuses them.
bool vela_encode(const DecodedWeightsU85& w, const int16_t* dense, std::vector<std::vector<uint8_t>>* out,
                 std::string* error) {
  const WeightLayoutU85& l = w.layout;
  // Vela's source is the weight tensor itself (int8, OHWI; depthwise: 1HWC).
  std::vector<int8_t> source(l.dense_size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (dense[i] < -128 || dense[i] > 127) {
      *error = "a decoded weight (" + std::to_string(dense[i]) + ") is outside int8";
      return false;
    }
    source[i] = static_cast<int8_t>(dense[i]);
  }
  const int taps = l.kernel_h * l.kernel_w;
  const regor::Shape ohwi = l.depthwise ? regor::Shape(1, l.kernel_h, l.kernel_w, l.ofm_depth)
                                        : regor::Shape(l.ofm_depth, l.kernel_h, l.kernel_w, l.ifm_depth);
  const regor::Shape strides = l.depthwise ? regor::Shape(taps * l.ofm_depth, l.kernel_w, 1, taps)
                                           : regor::Shape(taps * l.ifm_depth, l.kernel_w * l.ifm_depth, l.ifm_depth, 1);

  regor::ArchEthosU85 arch(l.decoders, l.macs);
  regor::EthosU85WeightEncoder encoder(&arch);
  const regor::EthosU85Traversal traversal = l.depthwise           ? regor::EthosU85Traversal::Depthwise
                                             : l.part_kernel_first ? regor::EthosU85Traversal::PartKernel
                                                                   : regor::EthosU85Traversal::DepthFirst;
  regor::EthosU85OpConfig op(regor::Shape(1, 1, 1, l.ofm_ublock_depth), regor::Shape(1, 1, 1, l.ofm_block_depth),
                             regor::Shape(1, 1, 1, l.ifm_block_depth), traversal, regor::EthosU85Accumulator::Acc32);
  regor::Kernel kernel(regor::Point2i(l.stride_x, l.stride_y), regor::Point2i(l.dilation_x, l.dilation_y));
  // Vela's WeightFormat (mlw_encode.hpp) is global; npu_model's own is u85::WeightFormat.
  using Format = ::WeightFormat;
  const Format base = w.fast ? Format::Fast : Format::Default;
  const regor::Flags<Format> format =
      l.sparse ? regor::Flags<Format>(base, Format::Sparse2_4) : regor::Flags<Format>(base);
  try {
    auto config = encoder.GetEncodingConfig(&op, &kernel, l.ifm_16bit ? regor::DataType::Int16 : regor::DataType::Int8,
                                            format);
    int scale_streams = 0;
    const int streams = encoder.StreamsRequired(config.get(), ohwi, scale_streams);
    regor::WeightTransformParam param{};
    auto unchanged = [](const regor::WeightTransformParam*, int weight) { return weight; };
    auto weights = encoder.GetWeightSource(config.get(), regor::DataType::Int8, unchanged, &param);
    out->assign(static_cast<size_t>(streams), {});
    for (int s = 0; s < streams; ++s) {
      weights->SetSource(source.data(), 0, ohwi, strides, s);
      encoder.EncodeWeights(config.get(), weights.get(), (*out)[static_cast<size_t>(s)]);
    }
  } catch (const std::exception& e) {
    *error = std::string("Vela's encoder refuses them: ") + e.what();
    return false;
  }
  return true;
}

struct Counts {
  size_t operations = 0;  // convolutions observed (the same weights may serve several)
  size_t compared = 0;    // distinct convolutions' weights re-encoded and compared
  size_t streams = 0;     // their byte streams (one per decoder, or one fast stream)
  size_t bytes = 0;
  std::map<std::string, size_t> kinds;  // the weights compared, by format and order

  void add(const Counts& o) {
    operations += o.operations;
    compared += o.compared;
    streams += o.streams;
    bytes += o.bytes;
    for (const auto& kv : o.kinds) kinds[kv.first] += kv.second;
  }
};

// "fast 2:4 sparse depth-first 16-bit IFM, 2 decoders"
std::string kind(const DecodedWeightsU85& w) {
  const WeightLayoutU85& l = w.layout;
  std::string k = w.fast ? "fast" : "standard";
  if (l.sparse) k += " 2:4 sparse";
  k += l.depthwise ? " depthwise" : (l.part_kernel_first ? " part-kernel-first" : " depth-first");
  if (l.ifm_16bit) k += " 16-bit IFM";
  return k + ", " + std::to_string(l.decoders) + (l.decoders == 1 ? " decoder" : " decoders");
}

std::string describe(const DecodedWeightsU85& w) {
  const WeightLayoutU85& l = w.layout;
  char text[120];
  std::snprintf(text, sizeof(text), "; %dx%d taps, %d -> %d channels, OFM block %d, IFM block %d, micro-block %d",
                l.kernel_h, l.kernel_w, l.ifm_depth, l.ofm_depth, l.ofm_block_depth, l.ifm_block_depth,
                l.ofm_ublock_depth);
  return kind(w) + text;
}

class RoundTrip : public WeightObserverU85 {
 public:
  // `operations`: the byte offsets of the partition's CONV (not matmul) and DEPTHWISE
  // commands, in stream order: the k-th weights observed are the k-th command's.
  RoundTrip(const std::string& name, const std::vector<size_t>& operations, Counts* counts)
      : name_(name), operations_(operations), counts_(counts) {}

  void weights_decoded(const DecodedWeightsU85& w) override {
    const size_t index = seen_++;
    char where[64];
    std::snprintf(where, sizeof(where), "%s at byte %zu", w.layout.depthwise ? "NPU_OP_DEPTHWISE" : "NPU_OP_CONV",
                  index < operations_.size() ? operations_[index] : size_t{0});
    const std::string what = name_ + ", " + where + " (" + describe(w) + ")";
    if (index >= operations_.size()) {
      ADD_FAILURE("%s: more convolutions decoded than the stream holds", what.c_str());
      return;
    }
    ++counts_->operations;
    std::string key(reinterpret_cast<const char*>(&w.layout), sizeof(w.layout));
    key += w.fast ? 'F' : 'S';
    for (int s = 0; s < w.streams; ++s) {
      key.append(reinterpret_cast<const char*>(w.bytes[s]), w.lengths[s]);
      key += '|';
    }
    if (!distinct_.insert(key).second) return;

    std::vector<std::vector<uint8_t>> encoded;
    std::string error;
    if (!vela_encode(w, w.dense, &encoded, &error)) {
      ADD_FAILURE("%s: %s", what.c_str(), error.c_str());
      return;
    }
    if (static_cast<int>(encoded.size()) != w.streams) {
      ADD_FAILURE("%s: Vela's encoder writes %zu stream(s), the command %d", what.c_str(), encoded.size(), w.streams);
      return;
    }
    bool same = true;
    for (int s = 0; s < w.streams; ++s) {
      const std::vector<uint8_t>& e = encoded[static_cast<size_t>(s)];
      size_t differ = 0;
      while (differ < e.size() && differ < w.lengths[s] && e[differ] == w.bytes[s][differ]) ++differ;
      if (e.size() != w.lengths[s] || differ != e.size()) {
        ADD_FAILURE("%s: stream %d re-encoded by Vela is %zu bytes, the command's %zu; first difference at byte %zu",
                    what.c_str(), s, e.size(), w.lengths[s], differ);
        same = false;
      }
      counts_->bytes += w.lengths[s];
    }
    ++counts_->compared;
    counts_->streams += static_cast<size_t>(w.streams);
    ++counts_->kinds[kind(w)];
    if (same) check_a_change_shows(w, what);
  }

 private:
  // One weight changed (the first non-zero one, to another non-zero value of the same sign:
  // a 2:4 sparse pattern stays valid) must change the encoded bytes.
  void check_a_change_shows(const DecodedWeightsU85& w, const std::string& what) {
    std::vector<int16_t> changed(w.dense, w.dense + w.layout.dense_size());
    for (int16_t& v : changed) {
      if (v == 0) continue;
      v = v == 1 ? 2 : (v == -1 ? -2 : static_cast<int16_t>(v > 0 ? v - 1 : v + 1));
      std::vector<std::vector<uint8_t>> encoded;
      std::string error;
      if (!vela_encode(w, changed.data(), &encoded, &error)) {
        ADD_FAILURE("%s, one weight changed: %s", what.c_str(), error.c_str());
        return;
      }
      bool all_same = true;
      for (int s = 0; s < w.streams; ++s) {
        const std::vector<uint8_t>& e = encoded[static_cast<size_t>(s)];
        all_same = all_same && e.size() == w.lengths[s] && std::memcmp(e.data(), w.bytes[s], e.size()) == 0;
      }
      if (all_same) ADD_FAILURE("%s: one weight changed, and Vela's encoder writes the same bytes", what.c_str());
      return;
    }
  }

  std::string name_;
  std::vector<size_t> operations_;
  Counts* counts_;
  size_t seen_ = 0;
  std::set<std::string> distinct_;
};

// Byte offsets of the CONV (weights from memory) and DEPTHWISE commands of a U85 stream.
bool weighted_operations(const std::vector<uint8_t>& cmd_data, std::vector<size_t>* out, std::string* error) {
  DriverPayload header;
  Status s = parse_driver_payload(cmd_data.data(), cmd_data.size(), &header);
  CommandReader reader(cmd_data.data(), header.commands_begin, header.commands_end, CommandSet::kEthosU85);
  while (s.ok() && !reader.done()) {
    Command c;
    s = reader.next(&c);
    if (!s.ok() || c.is_long) continue;
    const bool conv = c.opcode == static_cast<uint16_t>(u85::Cmd0::kConv) &&
                      u85::param_field(c.param, u85::kConvWeightsIfm2) == 0;
    if (conv || c.opcode == static_cast<uint16_t>(u85::Cmd0::kDepthwise)) out->push_back(c.offset);
  }
  if (!s.ok()) *error = s.message();
  return s.ok();
}

TEST(EthosU85Weights, VelasEncoderWritesTheDecodedWeightsAsTheStreamHoldsThem) {
  const std::vector<std::string> paths = case_paths();
  ASSERT_GT(paths.size(), size_t{0});
  std::map<std::string, Counts> by_target;
  Counts all;
  for (const std::string& path : paths) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(etarm::testing::read_file(path.c_str(), &bytes));
    Case c;
    CaseReader reader(bytes);
    ASSERT_TRUE(reader.read(&c));
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      const std::string name = case_name(path.c_str()) + " p" + std::to_string(p);
      PayloadBlocks blocks;
      ASSERT_TRUE(payload_blocks(c.partitions[p].payload, &blocks));
      std::vector<size_t> operations;
      std::string error;
      if (!weighted_operations(blocks.cmd_data, &operations, &error)) {
        ADD_FAILURE("%s: %s", name.c_str(), error.c_str());
        continue;
      }
      Counts counts;
      RoundTrip round_trip(name, operations, &counts);
      const Status ran = run_on_zeroed_scratch(c.target.c_str(), blocks.cmd_data, blocks, &round_trip);
      if (!ran.ok()) {
        ADD_FAILURE("%s: %s", name.c_str(), ran.message());
        continue;
      }
      EXPECT_EQ(counts.operations, operations.size());
      by_target[c.target].add(counts);
      all.add(counts);
    }
  }
  for (const auto& kv : by_target) {
    std::printf("%-16s %5zu convolutions, %5zu distinct weights, %5zu streams, %8zu bytes compared\n",
                kv.first.c_str(), kv.second.operations, kv.second.compared, kv.second.streams, kv.second.bytes);
  }
  for (const auto& kv : all.kinds) std::printf("  %-56s %5zu\n", kv.first.c_str(), kv.second);
  std::printf("all U85: %zu cases, %zu convolutions, %zu distinct weights, %zu streams, %zu bytes compared; %d failures\n",
              paths.size(), all.operations, all.compared, all.streams, all.bytes, etarm::testing::current_failures());
  EXPECT_GT(all.compared, size_t{0});
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
