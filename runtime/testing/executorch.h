// Printers for ExecuTorch's enums, so failed checks show names:
//   EXPECT_EQ(err, Error::Ok) -> "err = Error::InvalidProgram (0x23)".
#pragma once

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include "runtime/testing/test.h"

namespace etarm {
namespace testing {

template <>
struct Printer<executorch::runtime::Error> {
  static void print(executorch::runtime::Error e, Text* out) {
    internal::format(out, "%s (0x%x)", executorch::runtime::to_string(e), static_cast<unsigned>(e));
  }
};

template <>
struct Printer<executorch::aten::ScalarType> {
  static void print(executorch::aten::ScalarType t, Text* out) {
    internal::format(out, "ScalarType::%s (%d)", executorch::runtime::toString(t), static_cast<int>(t));
  }
};

}  // namespace testing
}  // namespace etarm
