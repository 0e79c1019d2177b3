// BundledProgram (runtime/runner/bundled_program.h) on real bundles from `etarm compile
// --bundleio`, on a plain .pte, and on every truncation and thousands of random mutations of a
// bundle: a damaged file must give an Error, and whatever load() accepts must be safe to read
// through every accessor (built with AddressSanitizer and UBSan, which would report a read
// outside the file).
//
// Arguments: FLOAT.bpte QUANTIZED.bpte PROGRAM.pte
#include <cstdint>
#include <cstring>
#include <vector>

#include "runtime/runner/bundled_program.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

using etarm::runner::BundledProgram;
using etarm::runner::BundledValue;
using etarm::runner::is_bundled_program;
using executorch::aten::ScalarType;
using executorch::runtime::Error;

namespace {

// 16-byte aligned bytes of a file, as the reader requires (the vector's own storage is).
std::vector<uint8_t> file(int arg) {
  std::vector<uint8_t> bytes;
  const char* path = etarm::testing::arg(arg);
  if (!etarm::testing::read_file(path, &bytes)) ADD_FAILURE("cannot read %s", path);
  return bytes;
}

// Reads everything a loaded bundle hands out, touching every byte of every tensor; returns a
// checksum so the reads cannot be optimised away.
uint64_t read_all(const BundledProgram& bundle) {
  uint64_t sum = bundle.program().size() + bundle.program()[0];
  auto visit = [&](const BundledValue& v) {
    if (v.kind != BundledValue::Kind::kTensor) return;
    for (size_t d = 0; d < v.tensor.sizes.size(); ++d) sum += static_cast<uint32_t>(v.tensor.sizes[d]);
    for (size_t d = 0; d < v.tensor.dim_order.size(); ++d) sum += v.tensor.dim_order[d];
    for (size_t k = 0; k < v.tensor.nbytes; ++k) sum += v.tensor.data[k];
  };
  for (size_t i = 0; i < bundle.num_test_cases(); ++i) {
    for (size_t k = 0; k < bundle.num_inputs(i); ++k) visit(bundle.input(i, k));
    for (size_t k = 0; k < bundle.num_expected_outputs(i); ++k) visit(bundle.expected_output(i, k));
  }
  const auto tol = bundle.tolerance();
  return sum + static_cast<uint64_t>(tol.atol * 1e9 + tol.rtol * 1e9);
}

uint64_t rng_state = 20261126;
uint32_t rnd() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return static_cast<uint32_t>(rng_state);
}

}  // namespace

TEST(BundledProgram, ReadsTheFloatBundle) {
  const std::vector<uint8_t> bytes = file(0);
  ASSERT_TRUE(is_bundled_program(bytes.data(), bytes.size()));
  auto bundle = BundledProgram::load(bytes.data(), bytes.size());
  ASSERT_EQ(bundle.error(), Error::Ok);
  // The program inside is a .pte: its own identifier.
  ASSERT_GT(bundle->program().size(), size_t{8});
  EXPECT_EQ(std::memcmp(bundle->program().data() + 4, "ET12", 4), 0);

  ASSERT_EQ(bundle->num_test_cases(), size_t{1});
  ASSERT_EQ(bundle->num_inputs(0), size_t{1});
  ASSERT_EQ(bundle->num_expected_outputs(0), size_t{1});
  for (const BundledValue& v : {bundle->input(0, 0), bundle->expected_output(0, 0)}) {
    ASSERT_TRUE(v.kind == BundledValue::Kind::kTensor);
    EXPECT_EQ(v.tensor.scalar_type, ScalarType::Float);
    EXPECT_EQ(v.tensor.nbytes, v.tensor.numel * sizeof(float));
    EXPECT_EQ(v.tensor.sizes.size(), size_t{2});
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.tensor.data) % 16, uintptr_t{0});  // force_align: 16
  }
  // The float allowance of python/etarm/bundleio.py (the MLP's outputs stay below 1).
  EXPECT_TRUE(bundle->tolerance().from_bundle);
  EXPECT_NEAR(bundle->tolerance().atol, 1e-4, 1e-12);
  EXPECT_NEAR(bundle->tolerance().rtol, 1e-4, 1e-12);
}

TEST(BundledProgram, QuantizedBundleAllowsAboutOneOutputStep) {
  const std::vector<uint8_t> bytes = file(1);
  auto bundle = BundledProgram::load(bytes.data(), bytes.size());
  ASSERT_EQ(bundle.error(), Error::Ok);
  // The quant MLP's int8 output spans about [-1.2, 0.6]: one step is a few thousandths.
  EXPECT_GT(bundle->tolerance().atol, 1e-3);
  EXPECT_LT(bundle->tolerance().atol, 2e-2);
}

TEST(BundledProgram, APteIsNoBundle) {
  const std::vector<uint8_t> bytes = file(2);
  EXPECT_FALSE(is_bundled_program(bytes.data(), bytes.size()));
  EXPECT_EQ(BundledProgram::load(bytes.data(), bytes.size()).error(), Error::InvalidProgram);
  EXPECT_EQ(BundledProgram::load(nullptr, 0).error(), Error::InvalidProgram);
}

TEST(BundledProgram, EveryTruncationIsRejectedOrSafe) {
  const std::vector<uint8_t> bytes = file(0);
  size_t accepted = 0;
  for (size_t size = 0; size < bytes.size(); ++size) {
    // A copy of exactly `size` bytes: AddressSanitizer sees any read past it.
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    auto bundle = BundledProgram::load(cut.data(), cut.size());
    if (bundle.ok()) {
      ++accepted;
      read_all(*bundle);
    }
  }
  // The builder writes the test cases last, at the end of the file: any cut loses part of them.
  EXPECT_EQ(accepted, size_t{0});
}

TEST(BundledProgram, RandomMutationsAreRejectedOrSafe) {
  const std::vector<uint8_t> original = file(1);
  size_t accepted = 0;
  uint64_t checksum = 0;
  for (int iteration = 0; iteration < 20000; ++iteration) {
    std::vector<uint8_t> bytes = original;
    for (int n = 1 + rnd() % 4; n > 0; --n) {
      const size_t at = rnd() % bytes.size();
      switch (rnd() % 3) {
        case 0:
          bytes[at] ^= static_cast<uint8_t>(1u << (rnd() % 8));
          break;
        case 1:
          bytes[at] = static_cast<uint8_t>(rnd());
          break;
        default: {  // a 32-bit offset or length replaced by a large or small one
          static const uint32_t kValues[] = {0, 1, 4, 0xff, 0x7fffffff, 0x80000000u, 0xffffffffu, 0xfffffff0u};
          const uint32_t v = kValues[rnd() % (sizeof(kValues) / sizeof(kValues[0]))];
          const size_t aligned = at & ~size_t{3};
          if (aligned + 4 <= bytes.size()) std::memcpy(bytes.data() + aligned, &v, 4);
          break;
        }
      }
    }
    auto bundle = BundledProgram::load(bytes.data(), bytes.size());
    if (bundle.ok()) {
      ++accepted;
      checksum += read_all(*bundle);
    }
  }
  // Most mutants hit the program or tensor data, which stay well formed.
  EXPECT_GT(accepted, size_t{0});
  EXPECT_GT(checksum, uint64_t{0});
}
