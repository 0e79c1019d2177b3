// Random mutations of real .vgf payloads (deterministic seed): parse_vgf() must accept or
// refuse each one without a crash or a read outside the payload (fuzz_asan_test runs it
// under ASan/UBSan). A bounded number of accepted mutants is also built on the device and
// run, so that what the reader lets through is safe for the Vulkan side too: those whose
// SPIR-V is the seed's (the reader checks only SPIR-V's framing; the device's compiler
// requires a valid module, and the ML emulation layer crashes on some invalid ones).
#include <cstdio>
#include <random>

#include "runtime/testing/executorch.h"
#include "runtime/vgf/test/test_cases.h"
#include "runtime/vgf/vulkan_graph.h"

namespace etarm {
namespace vgf {
namespace test {
namespace {

constexpr int kMutantsPerSeed = 3000;
// Accepted mutants per seed payload that are built and run (pipeline creation costs ~0.2 s).
constexpr int kBuiltPerSeed = 12;

const uint64_t kInteresting[] = {0, 1, 2, 3, 4, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
                                 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000, ~uint64_t{0}, uint64_t{1} << 63};

// One to four mutations: bit flips, interesting 8/32/64-bit values, truncation, chunk
// copies, byte runs.
std::vector<uint8_t> mutate(const std::vector<uint8_t>& seed, std::mt19937_64& rng) {
  std::vector<uint8_t> v = seed;
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int m = 0; m < count && !v.empty(); ++m) {
    const size_t at = rng() % v.size();
    switch (rng() % 7) {
      case 0:
        v[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        v[at] = static_cast<uint8_t>(kInteresting[rng() % (sizeof(kInteresting) / 8)]);
        break;
      case 2: {
        const size_t width = rng() % 2 == 0 ? 4 : 8;
        const size_t aligned = at / width * width;
        if (aligned + width <= v.size()) {
          const uint64_t value = kInteresting[rng() % (sizeof(kInteresting) / 8)] + (rng() % 3) - 1;
          std::memcpy(v.data() + aligned, &value, width);
        }
        break;
      }
      case 3:
        v.resize(at);
        break;
      case 4: {
        const size_t from = rng() % v.size();
        const size_t length = std::min<size_t>(1 + rng() % 64, std::min(v.size() - from, v.size() - at));
        std::memmove(v.data() + at, v.data() + from, length);
        break;
      }
      case 5: {
        const size_t length = std::min<size_t>(1 + rng() % 32, v.size() - at);
        std::memset(v.data() + at, static_cast<int>(rng() % 256), length);
        break;
      }
      default:
        v[at] = static_cast<uint8_t>(rng());
        break;
    }
  }
  return v;
}

bool same_spirv(const VgfModel& a, const VgfModel& b) {
  if (a.modules.size() != b.modules.size()) {
    return false;
  }
  for (size_t m = 0; m < a.modules.size(); ++m) {
    const Module& x = a.modules[m];
    const Module& y = b.modules[m];
    if (x.spirv_words != y.spirv_words || x.entry_point != y.entry_point ||
        (x.spirv_words != 0 && std::memcmp(x.spirv, y.spirv, x.spirv_words * 4) != 0)) {
      return false;
    }
  }
  return true;
}

TEST(Fuzz, MutatedPayloadsParseOrFailAndAcceptedOnesRun) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  ASSERT_EQ(VulkanDevice::shared(&device, &why), Error::Ok);
  std::mt19937_64 rng(20261126);
  for (const Case& c : cases) {
    Payload seed_payload(c.vgf);
    VgfModel seed;
    ASSERT_EQ(parse_vgf(seed_payload.data(), seed_payload.size(), &seed, &why), Error::Ok);
    size_t accepted = 0;
    size_t built = 0;
    size_t ran = 0;
    size_t errors[4] = {0, 0, 0, 0};  // InvalidProgram, NotSupported, others (parse); build failures
    for (int k = 0; k < kMutantsPerSeed; ++k) {
      const std::vector<uint8_t> bytes = mutate(c.vgf, rng);
      Payload payload(bytes);
      VgfModel model;
      const Error err = parse_vgf(payload.data(), payload.size(), &model, &why);
      if (err != Error::Ok) {
        ++errors[err == Error::InvalidProgram ? 0 : err == Error::NotSupported ? 1 : 2];
        EXPECT_FALSE(why.empty());
        continue;
      }
      ++accepted;
      if (static_cast<int>(built + errors[3]) >= kBuiltPerSeed || bytes == c.vgf || !same_spirv(model, seed)) {
        continue;
      }
      std::unique_ptr<VulkanGraph> graph;
      if (VulkanGraph::create(device, model, &graph, &why) != Error::Ok) {
        ++errors[3];
        continue;
      }
      ++built;
      for (size_t i = 0; i < graph->num_inputs(); ++i) {
        std::memset(graph->input_data(i), 0, graph->input(i).nbytes);
      }
      ran += graph->run(&why) == Error::Ok;
    }
    std::printf("%-16s %d mutants: %zu refused as invalid, %zu as not supported, %zu otherwise; %zu accepted "
                "(%zu built and %zu run, %zu refused by the device)\n",
                c.name.c_str(), kMutantsPerSeed, errors[0], errors[1], errors[2], accepted, built, ran, errors[3]);
    EXPECT_EQ(errors[2], 0u);
  }
}

}  // namespace
}  // namespace test
}  // namespace vgf
}  // namespace etarm
