// runtime/core's kernel registry: which library's kernel wins for an op
// (runtime/core/kernel_registry.h). Linked with //kernels/portable and the relu override
// library (//kernels/testing:relu_override), whose static initialisers ran before main.
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include "kernels/testing/relu_override.h"
#include "runtime/core/kernel_registry.h"
#include "runtime/core/test/registry_util.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/test.h"

namespace {

using namespace etarm;
using namespace etarm::registry_test;

using etarm::core::kOptimizedKernels;
using etarm::core::kPortableKernels;

Error register_one(const char* name, executorch::runtime::OpFunction fn, int priority, const char* key = nullptr) {
  const Kernel kernel(name, key, fn);
  return etarm::core::register_kernels({&kernel, 1}, priority);
}

TEST(Priority, ExecuTorchRegistrationsArePortable) {
  const Kernel kernel("etarm_test::plain.out", kernel_a);
  ASSERT_EQ(executorch::runtime::register_kernel(kernel), Error::Ok);
  auto priority = etarm::core::registered_priority("etarm_test::plain.out", nullptr);
  ASSERT_TRUE(priority.ok());
  EXPECT_EQ(*priority, kPortableKernels);
  EXPECT_EQ(etarm::core::registered_priority("etarm_test::absent.out", nullptr).error(), Error::NotFound);
}

TEST(Priority, HigherReplacesLower) {
  EXPECT_EQ(register_one("etarm_test::up.out", kernel_a, kPortableKernels), Error::Ok);
  EXPECT_EQ(register_one("etarm_test::up.out", kernel_b, kOptimizedKernels), Error::Ok);
  EXPECT_EQ(lookup("etarm_test::up.out"), &kernel_b);
  EXPECT_EQ(*etarm::core::registered_priority("etarm_test::up.out", nullptr), kOptimizedKernels);
}

// The order of static initialisers is unspecified: a lower priority arriving later changes
// nothing and is not an error.
TEST(Priority, LowerArrivingLaterIsIgnored) {
  EXPECT_EQ(register_one("etarm_test::down.out", kernel_b, kOptimizedKernels), Error::Ok);
  EXPECT_EQ(register_one("etarm_test::down.out", kernel_a, kPortableKernels), Error::Ok);
  EXPECT_EQ(lookup("etarm_test::down.out"), &kernel_b);
  EXPECT_EQ(*etarm::core::registered_priority("etarm_test::down.out", nullptr), kOptimizedKernels);
}

TEST(Priority, EqualPrioritiesConflict) {
  EXPECT_EQ(register_one("etarm_test::same.out", kernel_a, kOptimizedKernels), Error::Ok);
  EXPECT_EQ(register_one("etarm_test::same.out", kernel_b, kOptimizedKernels), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(lookup("etarm_test::same.out"), &kernel_a);
  // ExecuTorch's own rule at the portable level.
  const Kernel first("etarm_test::twice.out", kernel_a);
  const Kernel second("etarm_test::twice.out", kernel_b);
  EXPECT_EQ(executorch::runtime::register_kernel(first), Error::Ok);
  EXPECT_EQ(executorch::runtime::register_kernel(second), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(lookup("etarm_test::twice.out"), &kernel_a);
}

// A library is registered whole or not at all.
TEST(Priority, ABatchWithAConflictRegistersNothing) {
  EXPECT_EQ(register_one("etarm_test::taken.out", kernel_a, kOptimizedKernels), Error::Ok);
  const Kernel batch[] = {
      Kernel("etarm_test::fresh.out", kernel_b),
      Kernel("etarm_test::taken.out", kernel_b),
  };
  EXPECT_EQ(etarm::core::register_kernels({batch, 2}, kOptimizedKernels), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(lookup("etarm_test::fresh.out"), nullptr);
  const Kernel twice[] = {
      Kernel("etarm_test::dup.out", kernel_a),
      Kernel("etarm_test::dup.out", kernel_b),
  };
  EXPECT_EQ(etarm::core::register_kernels({twice, 2}, kOptimizedKernels), Error::RegistrationAlreadyRegistered);
  EXPECT_EQ(lookup("etarm_test::dup.out"), nullptr);
}

// A library may take over one dtype of an op: the exact key wins over the fallback,
// whatever the priorities.
TEST(Priority, ExactKeyBeatsFallback) {
  EXPECT_EQ(register_one("etarm_test::keyed.out", kernel_a, kOptimizedKernels), Error::Ok);  // fallback
  EXPECT_EQ(register_one("etarm_test::keyed.out", kernel_b, kPortableKernels, "v1/1;0,1"), Error::Ok);
  EXPECT_EQ(register_one("etarm_test::keyed.out", kernel_c, kOptimizedKernels, "v1/1;0,1"), Error::Ok);
  const Metas2d int8_meta(ScalarType::Char), float_meta(ScalarType::Float);
  EXPECT_EQ(lookup("etarm_test::keyed.out", int8_meta.span()), &kernel_c);
  EXPECT_EQ(lookup("etarm_test::keyed.out", float_meta.span()), &kernel_a);
  EXPECT_EQ(*etarm::core::registered_priority("etarm_test::keyed.out", "v1/1;0,1"), kOptimizedKernels);
}

// Static registration, as kernel libraries do it: the override library's relu replaced the
// portable one, and only that op.
TEST(Libraries, OverrideReplacesPortableOpByOp) {
  EXPECT_EQ(lookup("aten::relu.out"), &etarm::kernels::testing::relu_override);
  EXPECT_EQ(*etarm::core::registered_priority("aten::relu.out", nullptr), kOptimizedKernels);
  EXPECT_EQ(*etarm::core::registered_priority("aten::add.out", nullptr), kPortableKernels);
  EXPECT_NE(lookup("aten::add.out"), nullptr);
  EXPECT_EQ(etarm::core::kernel_registrations_dropped(), 0u);
}

TEST(Registry, InvalidKernelsAreRefused) {
  EXPECT_EQ(register_one("etarm_test::null.out", nullptr, kOptimizedKernels), Error::InvalidArgument);
  EXPECT_EQ(register_one(nullptr, kernel_a, kOptimizedKernels), Error::InvalidArgument);
  EXPECT_EQ(etarm::core::registered_priority(nullptr, nullptr).error(), Error::InvalidArgument);
}

}  // namespace
