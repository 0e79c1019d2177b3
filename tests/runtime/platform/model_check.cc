// Runner stand-in for etarm_firmware's test: the embedded blob must be intact (size and
// FNV-1a hash given as arguments), aligned, and in the board's bulk region.
// Arguments: SIZE FNV1A32 MIN_ADDRESS
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "etarm/model.h"
#include "etarm/platform.h"
#include "runtime/testing/test.h"

namespace {

uint32_t number_arg(int i) {
  return static_cast<uint32_t>(std::strtoul(etarm::testing::arg(i), nullptr, 0));
}

TEST(EmbeddedModel, IntactAlignedInTheBulkRegion) {
  ASSERT_EQ(etarm::testing::arg_count(), 3);
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < etarm_model_size; ++i) hash = (hash ^ etarm_model_data[i]) * 16777619u;
  const uintptr_t address = reinterpret_cast<uintptr_t>(etarm_model_data);
  std::printf("model at 0x%08lx: %lu bytes, fnv1a 0x%08lx\n", static_cast<unsigned long>(address),
              static_cast<unsigned long>(etarm_model_size), static_cast<unsigned long>(hash));
  EXPECT_EQ(etarm_model_size, number_arg(0));
  EXPECT_EQ(hash, number_arg(1));
  EXPECT_EQ(address % 64, 0u);
  EXPECT_GE(address, number_arg(2));
}

}  // namespace
