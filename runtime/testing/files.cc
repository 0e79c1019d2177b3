#include "runtime/testing/files.h"

#include <cstdio>

namespace etarm {
namespace testing {

bool read_file(const char* path, std::vector<uint8_t>* out) {
  FILE* f = path != nullptr ? std::fopen(path, "rb") : nullptr;
  if (f == nullptr) {
    return false;
  }
  uint8_t chunk[4096];
  for (size_t n; (n = std::fread(chunk, 1, sizeof(chunk), f)) > 0;) {
    out->insert(out->end(), chunk, chunk + n);
  }
  std::fclose(f);
  return true;
}

}  // namespace testing
}  // namespace etarm
