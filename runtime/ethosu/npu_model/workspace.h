// The model's working memory for one operation (dense copies of feature maps, decoded
// weights, scale records). Either a fixed buffer handed in by the platform (bare metal: no
// heap) or, without one, heap blocks allocated per operation and freed after it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

class Workspace {
 public:
  // A fixed buffer; `buffer == nullptr` makes it allocate from the heap instead.
  Workspace(uint8_t* buffer, size_t size) : buffer_(buffer), size_(size) {}
  ~Workspace() {
    release();
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  // `count` elements of T, zeroed, 16-byte aligned; `what` names them in the error.
  template <typename T>
  Status allocate(size_t count, const char* what, T** out) {
    void* p = nullptr;
    Status s = allocate_bytes(count, sizeof(T), what, &p);
    *out = static_cast<T*>(p);
    return s;
  }

  // Frees everything allocated since the last release (between operations).
  void release();

  // The most bytes one operation held at once so far.
  size_t peak() const {
    return peak_;
  }

 private:
  static constexpr int kMaxHeapBlocks = 16;
  Status allocate_bytes(size_t count, size_t elem, const char* what, void** out);

  uint8_t* buffer_;
  size_t size_;
  size_t used_ = 0;
  size_t peak_ = 0;
  uint8_t* heap_blocks_[kMaxHeapBlocks] = {};
  int num_heap_blocks_ = 0;
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
