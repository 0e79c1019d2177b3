#include "runtime/vgf/text.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace etarm {
namespace vgf {

std::string text_printf(const char* format, ...) {
  char buffer[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return buffer;
}

std::string shape_string(const int64_t* dims, size_t rank) {
  std::string s = "[";
  for (size_t d = 0; d < rank; ++d) {
    s += text_printf(d == 0 ? "%" PRId64 : ", %" PRId64, dims[d]);
  }
  return s + "]";
}

}  // namespace vgf
}  // namespace etarm
