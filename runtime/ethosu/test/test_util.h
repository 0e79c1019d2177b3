// Helpers shared by the Ethos-U delegate tests (TEST cases on //runtime/testing): a payload
// builder (docs/payload_formats.md, written independently of python/etarm/ethosu/payload.py
// so the two implementations check each other), tensors that own their storage, and calls
// into the registered backend as ExecuTorch would make them.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/platform/runtime.h>

#include "runtime/ethosu/ethosu_backend.h"
#include "runtime/executorch_names.h"
#include "runtime/testing/delegate_instance.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace test {

// ---- payload builder ------------------------------------------------------------------
inline void put_u32(std::vector<uint8_t>& v, uint32_t x) {
  for (int i = 0; i < 4; ++i) {
    v.push_back(static_cast<uint8_t>(x >> (8 * i)));
  }
}
inline void put_i32(std::vector<uint8_t>& v, int32_t x) {
  put_u32(v, static_cast<uint32_t>(x));
}
inline uint32_t get_u32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}
inline void set_u32(uint8_t* p, uint32_t x) {
  for (int i = 0; i < 4; ++i) {
    p[i] = static_cast<uint8_t>(x >> (8 * i));
  }
}

struct Block {
  std::string name;  // written as is: may be 16 characters or more for corruption tests
  std::vector<uint8_t> data;
};

inline std::vector<uint8_t> serialize(const std::vector<Block>& blocks) {
  std::vector<uint8_t> out;
  for (const Block& b : blocks) {
    uint8_t name[16] = {};
    std::memcpy(name, b.name.data(), b.name.size() < 16 ? b.name.size() : 16);
    out.insert(out.end(), name, name + 16);
    put_u32(out, static_cast<uint32_t>(b.data.size()));
    out.insert(out.end(), 12, 0);
    out.insert(out.end(), b.data.begin(), b.data.end());
    out.insert(out.end(), (16 - b.data.size() % 16) % 16, 0);
  }
  return out;
}

// Byte offset of the header of the block called `name` in a serialized stream (walking
// well-formed headers), or SIZE_MAX.
inline size_t block_offset(const std::vector<uint8_t>& bytes, const char* name) {
  size_t pos = 0;
  while (pos + 32 <= bytes.size()) {
    if (std::strncmp(reinterpret_cast<const char*>(bytes.data() + pos), name, 16) == 0) {
      return pos;
    }
    pos += 32 + (get_u32(bytes.data() + pos + 16) + 15) / 16 * 16;
  }
  return SIZE_MAX;
}

inline size_t dtype_bytes(uint8_t code) {
  return code == 2 ? 2 : code == 3 ? 4 : 1;
}

struct Io {
  std::vector<int32_t> shape;
  uint8_t dtype_code;  // 0 uint8, 1 int8, 2 int16, 3 int32, 11 bool
  int32_t offset;
  int32_t region = 1;

  size_t nbytes() const {
    size_t n = dtype_bytes(dtype_code);
    for (int32_t d : shape) {
      n *= static_cast<size_t>(d);
    }
    return n;
  }
  // The shape padded/folded to rank 4, as the inputs/outputs blocks hold it.
  std::vector<int32_t> shape4() const {
    std::vector<int32_t> s4(4, 1);
    const size_t rank = shape.size();
    for (size_t d = 0; d < rank; ++d) {
      const size_t position = d + 4 < rank ? 0 : d + 4 - rank;
      s4[position] *= shape[d];
    }
    return s4;
  }
};

struct Spec {
  std::vector<uint8_t> cmd;
  std::vector<uint8_t> weights;
  uint32_t scratch_size = 0;
  uint32_t fast_scratch_size = 0;
  std::vector<Io> inputs;
  std::vector<Io> outputs;
  bool meta = true;
};

inline std::vector<uint8_t> io_block(const std::vector<Io>& ios) {
  std::vector<uint8_t> v;
  put_i32(v, static_cast<int32_t>(ios.size()));
  for (const Io& io : ios) {
    for (int32_t d : io.shape4()) {
      put_i32(v, d);
    }
    put_i32(v, static_cast<int32_t>(dtype_bytes(io.dtype_code)));
    put_i32(v, io.offset);
    put_i32(v, io.region);
  }
  return v;
}

inline std::vector<uint8_t> meta_block(const Spec& s) {
  std::vector<uint8_t> v;
  put_u32(v, 1);
  put_u32(v, s.fast_scratch_size);
  put_u32(v, static_cast<uint32_t>(s.inputs.size()));
  put_u32(v, static_cast<uint32_t>(s.outputs.size()));
  for (const auto* list : {&s.inputs, &s.outputs}) {
    for (const Io& io : *list) {
      v.push_back(io.dtype_code);
      v.push_back(static_cast<uint8_t>(io.shape.size()));
      v.push_back(0);
      v.push_back(0);
      for (size_t d = 0; d < 6; ++d) {
        put_i32(v, d < io.shape.size() ? io.shape[d] : 0);
      }
    }
  }
  return v;
}

inline std::vector<Block> blocks_of(const Spec& s) {
  std::vector<uint8_t> scratch;
  put_u32(scratch, s.scratch_size);
  std::vector<Block> blocks = {
      {"vela_bin_stream", {}}, {"cmd_data", s.cmd},        {"weight_data", s.weights},
      {"scratch_size", scratch}, {"inputs", io_block(s.inputs)}, {"outputs", io_block(s.outputs)},
  };
  if (s.meta) {
    blocks.push_back({"etarm_meta", meta_block(s)});
  }
  blocks.push_back({"vela_end_stream", {}});
  return blocks;
}

inline std::vector<uint8_t> command_stream(size_t words) {
  std::vector<uint8_t> v = {'C', 'O', 'P', '1'};
  for (size_t i = 1; i < words; ++i) {
    put_u32(v, static_cast<uint32_t>(0x4000u + i * 0x01010101u));
  }
  return v;
}

// A payload with every feature: int8, int64-as-int32, a rank-5 int16 tensor in the fast
// scratch, an output in place of an input, an int64-as-int32 output.
inline Spec full_spec() {
  Spec s;
  s.cmd = command_stream(9);
  for (int i = 0; i < 45; ++i) {
    s.weights.push_back(static_cast<uint8_t>(200 - 3 * i));
  }
  s.scratch_size = 256;
  s.fast_scratch_size = 64;
  s.inputs = {
      {{1, 3, 4, 4}, 1, 0, 1},       // int8, 48 bytes
      {{2, 5}, 3, 64, 1},            // int32 (an int64 argument), 40 bytes
      {{2, 1, 2, 3, 2}, 2, 0, 2},    // int16 rank 5, 48 bytes, fast scratch
  };
  s.outputs = {
      {{1, 3, 4, 4}, 1, 0, 1},  // in place of input 0
      {{7}, 3, 128, 1},         // int32 (an int64 result), 28 bytes
      {{3}, 2, 48, 2},          // int16, 6 bytes, fast scratch
  };
  return s;
}

// ---- tensors --------------------------------------------------------------------------
class OwnedTensor {
 public:
  OwnedTensor(ScalarType type, std::vector<int32_t> sizes, bool channels_last = false)
      : sizes_(std::move(sizes)), dim_order_(sizes_.size()), strides_(sizes_.size()) {
    for (size_t d = 0; d < sizes_.size(); ++d) {
      dim_order_[d] = static_cast<uint8_t>(d);
    }
    if (channels_last && sizes_.size() == 4) {
      dim_order_ = {0, 2, 3, 1};
    }
    size_t numel = 1;
    for (size_t i = sizes_.size(); i-- > 0;) {
      const size_t d = dim_order_[i];
      strides_[d] = static_cast<int32_t>(numel);
      numel *= static_cast<size_t>(sizes_[d]);
    }
    storage_.assign((numel * executorch::runtime::elementSize(type) + 7) / 8 + 1, 0);
    impl_ = std::make_unique<TensorImpl>(type, static_cast<ssize_t>(sizes_.size()), sizes_.data(), storage_.data(),
                                         dim_order_.data(), strides_.data());
    value_ = EValue(Tensor(impl_.get()));
  }
  OwnedTensor(const OwnedTensor&) = delete;
  OwnedTensor& operator=(const OwnedTensor&) = delete;

  uint8_t* bytes() {
    return reinterpret_cast<uint8_t*>(storage_.data());
  }
  size_t nbytes() const {
    return impl_->nbytes();
  }
  EValue* value() {
    return &value_;
  }

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<int64_t> storage_;  // 8-byte aligned
  std::unique_ptr<TensorImpl> impl_;
  EValue value_;
};

inline ScalarType scalar_type_of(uint8_t dtype_code) {
  return dtype_from_code(dtype_code);
}

// ---- calling the backend --------------------------------------------------------------
inline BackendInterface* backend() {
  return executorch::runtime::get_backend_class(kBackendId);
}

// A delegate instance of EthosUBackend, with what its handle records.
class Instance : public etarm::testing::DelegateInstance {
 public:
  explicit Instance(size_t pool_bytes = 1 << 16) : DelegateInstance(kBackendId, pool_bytes) {}
  HandleInfo info() const {
    return handle_info(handle());
  }
};

// A heap copy of exactly `bytes.size()` bytes (so sanitizers see any read past the end).
inline std::unique_ptr<uint8_t[]> exact_copy(const std::vector<uint8_t>& bytes) {
  std::unique_ptr<uint8_t[]> p(new uint8_t[bytes.size() ? bytes.size() : 1]);
  if (!bytes.empty()) {
    std::memcpy(p.get(), bytes.data(), bytes.size());
  }
  return p;
}

}  // namespace test
}  // namespace ethosu
}  // namespace etarm
