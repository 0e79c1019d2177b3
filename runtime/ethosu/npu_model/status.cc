#include "runtime/ethosu/npu_model/status.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {

Status Status::error(Fault kind, const char* fmt, ...) {
  Status s;
  s.fault_ = kind;
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(s.message_, sizeof(s.message_), fmt, args);
  va_end(args);
  return s;
}

Status& Status::at_command(const char* command, size_t offset) {
  if (ok() || located_) {
    return *this;
  }
  char prefix[96];
  int n = std::snprintf(prefix, sizeof(prefix), "%s at byte %zu: ", command, offset);
  size_t plen = n < 0 ? 0 : (static_cast<size_t>(n) < sizeof(prefix) ? static_cast<size_t>(n) : sizeof(prefix) - 1);
  // Shift the message right (truncating its end) and put the prefix in front.
  const size_t mlen = std::strlen(message_);
  const size_t keep = mlen + plen < kMessageSize ? mlen : kMessageSize - 1 - plen;
  std::memmove(message_ + plen, message_, keep);
  message_[plen + keep] = '\0';
  std::memcpy(message_, prefix, plen);
  located_ = true;
  return *this;
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
