// Building the one-line reasons the VGF runtime reports with its errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace etarm {
namespace vgf {

// printf into a std::string (reasons are short: at most 255 characters are kept).
std::string text_printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// "[1, 8, 16, 16]".
std::string shape_string(const int64_t* dims, size_t rank);

}  // namespace vgf
}  // namespace etarm
