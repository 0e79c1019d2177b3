// Reading the reference cases make_case.py writes: per Ethos-U partition of a compiled
// model, its EthosUBackend payload and input sets with the outputs the TOSA reference
// model computed for them.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/weight_layout_u85.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {

struct InputSet {
  std::string label;
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<std::vector<uint8_t>> outputs;  // what the TOSA reference model computed
};

struct PartitionCase {
  std::vector<uint8_t> payload;
  std::vector<InputSet> sets;
};

struct Case {
  std::string target;  // "ethos-u55-128"
  std::vector<PartitionCase> partitions;
};

class CaseReader {
 public:
  explicit CaseReader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}

  bool read(Case* out) {
    if (bytes_.size() < 8 || std::memcmp(bytes_.data(), "NPUCASE1", 8) != 0) return false;
    pos_ = 8;
    uint32_t partitions = 0;
    if (!str(&out->target) || !u32(&partitions)) return false;
    out->partitions.resize(partitions);
    for (PartitionCase& p : out->partitions) {
      uint32_t sets = 0;
      if (!blob(&p.payload) || !u32(&sets)) return false;
      p.sets.resize(sets);
      for (InputSet& s : p.sets) {
        uint32_t n = 0;
        if (!str(&s.label) || !u32(&n)) return false;
        s.inputs.resize(n);
        for (auto& b : s.inputs) {
          if (!blob(&b)) return false;
        }
        if (!u32(&n)) return false;
        s.outputs.resize(n);
        for (auto& b : s.outputs) {
          if (!blob(&b)) return false;
        }
      }
    }
    return pos_ == bytes_.size();
  }

 private:
  bool u32(uint32_t* v) {
    if (bytes_.size() - pos_ < 4) return false;
    *v = bytes_[pos_] | (bytes_[pos_ + 1] << 8) | (bytes_[pos_ + 2] << 16) | (uint32_t{bytes_[pos_ + 3]} << 24);
    pos_ += 4;
    return true;
  }
  bool blob(std::vector<uint8_t>* b) {
    uint32_t n = 0;
    if (!u32(&n) || bytes_.size() - pos_ < n) return false;
    b->assign(bytes_.begin() + pos_, bytes_.begin() + pos_ + n);
    pos_ += n;
    return true;
  }
  bool str(std::string* s) {
    std::vector<uint8_t> b;
    if (!blob(&b)) return false;
    s->assign(b.begin(), b.end());
    return true;
  }

  const std::vector<uint8_t>& bytes_;
  size_t pos_ = 0;
};

// "<dir>/conv2d_u55.case" -> "conv2d_u55".
inline std::string case_name(const char* path) {
  std::string p(path);
  const size_t slash = p.find_last_of('/');
  if (slash != std::string::npos) p = p.substr(slash + 1);
  const size_t dot = p.rfind('.');
  return dot == std::string::npos ? p : p.substr(0, dot);
}

}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {

// The blocks of an EthosUBackend payload the NPU needs (docs/payload_formats.md): read here
// without the delegate's parser so that tests of the bare model need no ExecuTorch.
struct PayloadBlocks {
  std::vector<uint8_t> cmd_data;
  std::vector<uint8_t> weight_data;
  uint32_t scratch_size = 0;
  uint32_t fast_scratch_size = 0;  // region 2: the second word of etarm_meta, 0 without one
};

inline bool payload_blocks(const std::vector<uint8_t>& payload, PayloadBlocks* out) {
  size_t pos = 0;
  while (pos + 32 <= payload.size()) {
    char name[17] = {};
    std::memcpy(name, payload.data() + pos, 16);
    uint32_t size = 0;
    std::memcpy(&size, payload.data() + pos + 16, 4);
    if (size > payload.size() - pos - 32) return false;
    const uint8_t* data = payload.data() + pos + 32;
    if (std::strcmp(name, "cmd_data") == 0) out->cmd_data.assign(data, data + size);
    if (std::strcmp(name, "weight_data") == 0) out->weight_data.assign(data, data + size);
    if (std::strcmp(name, "scratch_size") == 0 && size == 4) std::memcpy(&out->scratch_size, data, 4);
    if (std::strcmp(name, "etarm_meta") == 0 && size >= 8) std::memcpy(&out->fast_scratch_size, data + 4, 4);
    pos += 32 + (size + 15) / 16 * 16;
  }
  return !out->cmd_data.empty();
}

// Runs `stream` (a driver payload: the partition's own or an edited one) on the model for
// `target` with the partition's weights and zeroed scratch and fast-scratch regions;
// `observer` sees each U85 convolution's decoded weights.
inline Status run_on_zeroed_scratch(const char* target, const std::vector<uint8_t>& stream,
                                    const PayloadBlocks& blocks, WeightObserverU85* observer = nullptr) {
  std::vector<uint8_t> weights = blocks.weight_data;
  std::vector<uint8_t> scratch(blocks.scratch_size + 16, 0);
  std::vector<uint8_t> fast(blocks.fast_scratch_size + 16, 0);
  const Region regions[] = {
      {weights.data(), weights.size(), false},
      {scratch.data(), scratch.size(), true},
      {fast.data(), fast.size(), true},
  };
  NpuModel model(find_accelerator(target));
  model.set_weight_observer_u85(observer);
  return model.run(stream.data(), stream.size(), regions, 3);
}

// The case files the arguments name: a .case file, or a .txt file listing case files (one
// per line, relative to the list).
inline std::vector<std::string> case_paths() {
  std::vector<std::string> paths;
  for (int a = 0; a < etarm::testing::arg_count(); ++a) {
    const std::string arg = etarm::testing::arg(a);
    if (arg.size() < 4 || arg.compare(arg.size() - 4, 4, ".txt") != 0) {
      paths.push_back(arg);
      continue;
    }
    std::vector<uint8_t> list;
    if (!etarm::testing::read_file(arg.c_str(), &list)) {
      ADD_FAILURE("cannot read %s", arg.c_str());
      continue;
    }
    const size_t slash = arg.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "" : arg.substr(0, slash + 1);
    std::string line;
    for (uint8_t c : list) {
      if (c == '\n') {
        if (!line.empty()) paths.push_back(dir + line);
        line.clear();
      } else {
        line.push_back(static_cast<char>(c));
      }
    }
    if (!line.empty()) paths.push_back(dir + line);
  }
  return paths;
}

}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
