// One delegate of a registered backend, driven the way a Method drives it: init() on a
// payload with an allocator over its own pool, execute() with the delegate's arguments,
// destroy() when the instance goes out of scope. For the delegate tests of every backend.
#pragma once

#include <executorch/runtime/backend/interface.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace etarm {
namespace testing {

class DelegateInstance {
 public:
  using Error = executorch::runtime::Error;
  using EValue = executorch::runtime::EValue;

  explicit DelegateInstance(const char* backend_id, size_t pool_bytes = 1 << 16)
      : backend_id_(backend_id), pool_(pool_bytes), allocator_(pool_bytes, pool_.data()) {}
  ~DelegateInstance() {
    if (handle_ != nullptr) {
      backend()->destroy(handle_);
    }
  }
  DelegateInstance(const DelegateInstance&) = delete;
  DelegateInstance& operator=(const DelegateInstance&) = delete;

  // The registered backend (nullptr when no library registered `backend_id`).
  executorch::runtime::BackendInterface* backend() const {
    return executorch::runtime::get_backend_class(backend_id_);
  }
  Error init(const void* data, size_t size) {
    executorch::runtime::FreeableBuffer buffer(data, size, nullptr);
    executorch::runtime::BackendInitContext context(&allocator_);
    auto result = backend()->init(context, &buffer, {});
    if (!result.ok()) {
      return result.error();
    }
    handle_ = result.get();
    return Error::Ok;
  }
  Error execute(std::vector<EValue*> args) {
    executorch::runtime::BackendExecutionContext context;
    return backend()->execute(context, handle_, executorch::runtime::Span<EValue*>(args.data(), args.size()));
  }
  executorch::runtime::DelegateHandle* handle() const {
    return handle_;
  }

 private:
  const char* backend_id_;
  std::vector<uint8_t> pool_;
  executorch::runtime::MemoryAllocator allocator_;
  executorch::runtime::DelegateHandle* handle_ = nullptr;
};

}  // namespace testing
}  // namespace etarm
