#include "runtime/ethosu/npu_model/accumulators.h"

#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {

Status Accumulators::store(int64_t h, int64_t w, int64_t c, const int64_t* values) {
  // `values` may be workspace memory of the running operation, never these blocks: copy,
  // then drop the old blocks by starting over with the copy.
  const size_t count = static_cast<size_t>(h * w * c);
  clear();
  int64_t* copy = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(storage_.allocate(count, "accumulators", &copy));
  std::memcpy(copy, values, count * sizeof(int64_t));
  h_ = h, w_ = w, c_ = c;
  values_ = copy;
  return Status();
}

Status Accumulators::get(int64_t h, int64_t w, int64_t c, const int64_t** out) const {
  if (dropped_) {
    return Status::error(Fault::kUnsupported,
                         "ACC_FORMAT keeps the accumulators of an operation that wrote its OFM: not modelled");
  }
  if (values_ == nullptr) {
    return Status::error(Fault::kMalformedStream, "ACC_FORMAT keeps the accumulators, but no operation left any");
  }
  if (h != h_ || w != w_ || c != c_) {
    return Status::error(Fault::kUnsupported,
                         "keeping %lldx%lldx%lld accumulators for a %lldx%lldx%lld operation is not modelled",
                         static_cast<long long>(h_), static_cast<long long>(w_), static_cast<long long>(c_),
                         static_cast<long long>(h), static_cast<long long>(w), static_cast<long long>(c));
  }
  *out = values_;
  return Status();
}

void Accumulators::drop_written() {
  clear();
  dropped_ = true;
}

void Accumulators::clear() {
  dropped_ = false;
  values_ = nullptr;
  h_ = w_ = c_ = 0;
  storage_.release();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
