// Helpers shared by the VGF delegate tests: the cases make_vgf_cases.py builds (a .vgf and
// its .io file: inputs and the TOSA reference model's outputs), comparisons, and payload
// buffers.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/testing/files.h"
#include "runtime/testing/test.h"
#include "runtime/vgf/vgf_model.h"
#include "runtime/vgf/vulkan_graph.h"

namespace etarm {
namespace vgf {
namespace test {

// dtype codes of the .io format (make_vgf_cases.py DTYPE_CODES).
enum DtypeCode : uint32_t { kInt8 = 1, kInt16 = 2, kInt32 = 3, kFloat32 = 6 };

struct IoTensor {
  uint32_t dtype = 0;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  bool is_float() const {
    return dtype == kFloat32;
  }
  // Whether a graph tensor of `graph_shape` holds this one: the same shape, or [1] for a
  // rank-0 tensor (a Vulkan tensor has at least one dimension).
  bool fits(const std::vector<int64_t>& graph_shape) const {
    return graph_shape == shape || (shape.empty() && graph_shape == std::vector<int64_t>{1});
  }
};

struct Case {
  std::string name;                // "mlp_int"
  std::vector<uint8_t> vgf;        // the payload
  std::vector<IoTensor> inputs;    // in the TOSA graph's order
  std::vector<IoTensor> expected;  // the reference model's outputs
};

inline uint32_t element_size(uint32_t dtype) {
  return dtype == kInt8 ? 1 : dtype == kInt16 ? 2 : 4;
}

// The VkFormat the converter gives a tensor of this dtype.
inline int32_t vk_format_of(uint32_t dtype) {
  switch (dtype) {
    case kInt8:
      return 14;  // VK_FORMAT_R8_SINT
    case kInt16:
      return 75;  // VK_FORMAT_R16_SINT
    case kInt32:
      return 99;  // VK_FORMAT_R32_SINT
    default:
      return 100;  // VK_FORMAT_R32_SFLOAT
  }
}

// Reads `<name>.vgf` and `<name>.io` (paths given; name from the .vgf's file name).
inline bool load_case(const char* vgf_path, const char* io_path, Case* out) {
  *out = Case{};
  std::string path = vgf_path;
  const size_t slash = path.rfind('/');
  out->name = path.substr(slash == std::string::npos ? 0 : slash + 1);
  out->name = out->name.substr(0, out->name.size() - 4);
  std::vector<uint8_t> io;
  if (!etarm::testing::read_file(vgf_path, &out->vgf) || !etarm::testing::read_file(io_path, &io)) {
    return false;
  }
  size_t pos = 0;
  const auto take = [&io, &pos](void* dst, size_t n) {
    if (pos + n > io.size()) {
      return false;
    }
    std::memcpy(dst, io.data() + pos, n);
    pos += n;
    return true;
  };
  char magic[8];
  uint32_t counts[2];
  if (!take(magic, 8) || std::memcmp(magic, "VGFIO001", 8) != 0 || !take(counts, sizeof(counts))) {
    return false;
  }
  for (uint32_t k = 0; k < counts[0] + counts[1]; ++k) {
    IoTensor t;
    uint32_t rank = 0;
    if (!take(&t.dtype, 4) || !take(&rank, 4) || rank > 8) {
      return false;
    }
    t.shape.resize(rank);
    size_t elements = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      if (!take(&t.shape[d], 8)) {
        return false;
      }
      elements *= static_cast<size_t>(t.shape[d]);
    }
    t.bytes.resize(elements * element_size(t.dtype));
    if (!take(t.bytes.data(), t.bytes.size())) {
      return false;
    }
    (k < counts[0] ? out->inputs : out->expected).push_back(std::move(t));
  }
  return pos == io.size();
}

// The cases named on the command line: pairs of (.vgf, .io) paths.
inline std::vector<Case> cases_from_args() {
  std::vector<Case> cases;
  for (int i = 0; i + 1 < etarm::testing::arg_count(); i += 2) {
    Case c;
    if (!load_case(etarm::testing::arg(i), etarm::testing::arg(i + 1), &c)) {
      ADD_FAILURE("cannot read the case %s / %s", etarm::testing::arg(i), etarm::testing::arg(i + 1));
      continue;
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// Largest errors of one comparison.
struct Errors {
  double max_abs = 0;
  double max_rel = 0;
  size_t mismatches = 0;  // integers: elements that differ; floats: beyond 1e-5 relative
};

// Integers bit-exact; floats within 1e-5 relative (absolute below magnitude 1).
inline Errors compare(const IoTensor& want, const uint8_t* got) {
  Errors e;
  const size_t n = want.bytes.size() / element_size(want.dtype);
  for (size_t k = 0; k < n; ++k) {
    double w;
    double g;
    if (want.is_float()) {
      float wf;
      float gf;
      std::memcpy(&wf, want.bytes.data() + 4 * k, 4);
      std::memcpy(&gf, got + 4 * k, 4);
      w = wf;
      g = gf;
    } else {
      int64_t wi = 0;
      int64_t gi = 0;
      const size_t size = element_size(want.dtype);
      std::memcpy(&wi, want.bytes.data() + size * k, size);
      std::memcpy(&gi, got + size * k, size);
      // sign-extend
      const int shift = static_cast<int>(64 - 8 * size);
      w = static_cast<double>(static_cast<int64_t>(static_cast<uint64_t>(wi) << shift) >> shift);
      g = static_cast<double>(static_cast<int64_t>(static_cast<uint64_t>(gi) << shift) >> shift);
    }
    const double abs_error = std::fabs(g - w);
    const double rel_error = abs_error / std::fmax(std::fabs(w), 1.0);
    e.max_abs = std::fmax(e.max_abs, abs_error);
    e.max_rel = std::fmax(e.max_rel, rel_error);
    if (want.is_float() ? !(rel_error <= 1e-5) : abs_error != 0) {
      ++e.mismatches;
    }
  }
  return e;
}

// A copy of exactly `size` bytes in its own heap block (so sanitizers see any read past
// the end), 16-byte aligned, or misaligned by `offset`.
class Payload {
 public:
  Payload(const uint8_t* data, size_t size, size_t offset = 0)
      : storage_(new uint8_t[size + offset > 0 ? size + offset : 1]), size_(size), offset_(offset) {
    if (size != 0) {
      std::memcpy(this->data(), data, size);
    }
  }
  explicit Payload(const std::vector<uint8_t>& bytes, size_t offset = 0) : Payload(bytes.data(), bytes.size(), offset) {}
  uint8_t* data() {
    return storage_.get() + offset_;
  }
  size_t size() const {
    return size_;
  }

 private:
  std::unique_ptr<uint8_t[]> storage_;  // operator new[] aligns to 16 bytes
  size_t size_;
  size_t offset_;
};

// Parses `vgf` and builds its graph on `device`.
inline Error build_graph(const std::vector<uint8_t>& vgf, const std::shared_ptr<VulkanDevice>& device,
                         std::unique_ptr<VulkanGraph>* graph, std::string* why) {
  Payload payload(vgf);
  VgfModel model;
  Error err = parse_vgf(payload.data(), payload.size(), &model, why);
  if (err == Error::Ok) {
    err = VulkanGraph::create(device, model, graph, why);
  }
  return err;
}

}  // namespace test
}  // namespace vgf
}  // namespace etarm
