// The kernel table's capacity comes from the build (--//runtime/core:max_kernels): fill it
// and see the next registration refused with RegistrationExceedingMaxKernels, counted,
// and the dropped op missing; a replacement needs no new entry and still works.
// Arguments: the capacity the program was built with.
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <executorch/runtime/kernel/operator_registry.h>

#include "runtime/core/kernel_registry.h"
#include "runtime/core/test/registry_util.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/test.h"

namespace {

using namespace etarm;
using namespace etarm::registry_test;

struct Name {
  char text[48];
};

TEST(Capacity, FromTheBuild) {
  ASSERT_EQ(etarm::testing::arg_count(), 1);
  EXPECT_EQ(etarm::core::kernel_registry_capacity(), std::strtoul(etarm::testing::arg(0), nullptr, 10));
}

TEST(Capacity, FullTableRefusesNewOpsOnly) {
  const size_t capacity = etarm::core::kernel_registry_capacity();
  const size_t used = executorch::runtime::get_registered_kernels().size();
  ASSERT_LE(used, capacity);
  std::vector<Name> names(capacity - used + 1);
  for (size_t i = 0; i < names.size(); ++i) std::snprintf(names[i].text, sizeof names[i].text, "etarm_test::op%zu.out", i);
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    const Kernel k(names[i].text, kernel_a);
    ASSERT_EQ(executorch::runtime::register_kernel(k), Error::Ok);
  }
  EXPECT_EQ(executorch::runtime::get_registered_kernels().size(), capacity);
  EXPECT_EQ(etarm::core::kernel_registrations_dropped(), 0u);

  const Kernel one_too_many(names.back().text, kernel_a);
  EXPECT_EQ(executorch::runtime::register_kernel(one_too_many), Error::RegistrationExceedingMaxKernels);
  EXPECT_EQ(etarm::core::kernel_registrations_dropped(), 1u);
  EXPECT_EQ(executorch::runtime::get_op_function_from_registry(names.back().text).error(), Error::OperatorMissing);

  const Kernel better(names[0].text, kernel_b);
  EXPECT_EQ(etarm::core::register_kernels({&better, 1}, etarm::core::kOptimizedKernels), Error::Ok);
  auto found = executorch::runtime::get_op_function_from_registry(names[0].text);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, &kernel_b);
}

}  // namespace
