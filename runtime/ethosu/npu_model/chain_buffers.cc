#include "runtime/ethosu/npu_model/chain_buffers.h"

#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {

Status ChainBuffers::store(uint32_t index, int64_t h, int64_t w, int64_t c, const int32_t* values) {
  if (index >= kCount) {
    return Status::error(Fault::kMalformedStream, "chaining buffer %u does not exist", static_cast<unsigned>(index));
  }
  const size_t count = static_cast<size_t>(h * w * c);
  int32_t* copy = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(storage_.allocate(count, "chaining buffer", &copy));
  std::memcpy(copy, values, count * sizeof(int32_t));
  buffers_[index] = Buffer{h, w, c, copy};
  return Status();
}

Status ChainBuffers::get(uint32_t index, const char* reader, const Buffer** out) const {
  if (index >= kCount || buffers_[index].values == nullptr) {
    return Status::error(Fault::kMalformedStream, "%s reads chaining buffer %u, which no operation of the chain wrote",
                         reader, static_cast<unsigned>(index));
  }
  *out = &buffers_[index];
  return Status();
}

void ChainBuffers::clear() {
  for (Buffer& b : buffers_) {
    b = Buffer{};
  }
  storage_.release();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
