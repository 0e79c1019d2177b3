#include "runtime/ethosu/npu_model/workspace.h"

#include <cstring>
#include <new>

namespace etarm {
namespace ethosu {
namespace npu_model {

Status Workspace::allocate_bytes(size_t count, size_t elem, const char* what, void** out) {
  *out = nullptr;
  if (count > SIZE_MAX / elem / 2) {
    return Status::error(Fault::kOutOfMemory, "%s: %zu elements is more than the model can address", what, count);
  }
  const size_t bytes = (count * elem + 15) & ~size_t{15};
  if (buffer_ != nullptr) {
    const size_t start = (used_ + 15) & ~size_t{15};
    if (start > size_ || bytes > size_ - start) {
      return Status::error(Fault::kOutOfMemory, "%s needs %zu bytes; the model's %zu-byte workspace has %zu free", what,
                           bytes, size_, start > size_ ? 0 : size_ - start);
    }
    used_ = start + bytes;
    std::memset(buffer_ + start, 0, bytes);
    *out = buffer_ + start;
  } else {
    if (num_heap_blocks_ == kMaxHeapBlocks) {
      return Status::error(Fault::kOutOfMemory, "%s: too many workspace blocks in one operation", what);
    }
    uint8_t* block = new (std::nothrow) uint8_t[bytes == 0 ? 16 : bytes]();
    if (block == nullptr) {
      return Status::error(Fault::kOutOfMemory, "%s: cannot allocate %zu bytes", what, bytes);
    }
    heap_blocks_[num_heap_blocks_++] = block;
    used_ += bytes;
    *out = block;
  }
  peak_ = used_ > peak_ ? used_ : peak_;
  return Status();
}

void Workspace::release() {
  for (int i = 0; i < num_heap_blocks_; ++i) {
    delete[] heap_blocks_[i];
    heap_blocks_[i] = nullptr;
  }
  num_heap_blocks_ = 0;
  used_ = 0;
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
