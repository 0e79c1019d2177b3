// The files a test program is given on its command line (etarm::testing::arg), read whole
// through stdio.
#pragma once

#include <cstdint>
#include <vector>

namespace etarm {
namespace testing {

// Appends the bytes of the file at `path` to *out; false when there is no such file (or
// `path` is null).
bool read_file(const char* path, std::vector<uint8_t>* out);

}  // namespace testing
}  // namespace etarm
