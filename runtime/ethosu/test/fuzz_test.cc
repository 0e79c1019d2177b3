// Random corruptions of Ethos-U payloads must never crash the delegate: each mutant goes
// through parse_payload and (when accepted, and every 16th rejected one) through
// EthosUBackend init; an accepted one is also executed with matching tensors on the
// recording fake driver. Bounded and deterministic (own PRNG, fixed seed), so a failure
// reproduces; built once plain and once under -fsanitize=address,undefined.
//
// Arguments: PAYLOAD.bin ... (seeds beyond the synthetic ones).
#include <cinttypes>
#include <cstdlib>

#include "runtime/ethosu/test/test_util.h"
#include "runtime/ethosu/testing/recording_driver.h"

namespace etarm {
namespace ethosu {
namespace test {
namespace {

// splitmix64: the same sequence on every platform and standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) {
    return n == 0 ? 0 : static_cast<size_t>(next() % n);
  }

 private:
  uint64_t state_;
};

const uint32_t kInteresting[] = {0,          1,          2,          3,          4,          7,          15,
                                 16,         17,         28,         32,         255,        256,        0x7fff,
                                 0x8000,     0xffff,     0x10000,    0x7fffffff, 0x80000000, 0xfffffff0, 0xffffffff};

// One random mutation (sometimes several stacked).
void mutate(std::vector<uint8_t>& v, Rng& rng) {
  const size_t kinds = 9;
  const size_t rounds = 1 + (rng.below(4) == 0 ? rng.below(4) : 0);
  for (size_t r = 0; r < rounds; ++r) {
    switch (rng.below(kinds)) {
      case 0:  // flip a bit
        if (!v.empty()) v[rng.below(v.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
        break;
      case 1:  // a random byte
        if (!v.empty()) v[rng.below(v.size())] = static_cast<uint8_t>(rng.next());
        break;
      case 2:  // an interesting 32-bit value at a 4-byte aligned position (sizes, counts, fields)
        if (v.size() >= 4) {
          const size_t at = rng.below(v.size() / 4) * 4;
          set_u32(v.data() + at, kInteresting[rng.below(sizeof(kInteresting) / sizeof(kInteresting[0]))]);
        }
        break;
      case 3:  // +-small delta to a 32-bit field
        if (v.size() >= 4) {
          const size_t at = rng.below(v.size() / 4) * 4;
          set_u32(v.data() + at, get_u32(v.data() + at) + static_cast<uint32_t>(rng.below(33)) - 16u);
        }
        break;
      case 4:  // truncate (often to a multiple of 16)
        if (!v.empty()) {
          size_t n = rng.below(v.size());
          if (rng.below(2)) n = n / 16 * 16;
          v.resize(n);
        }
        break;
      case 5:  // append bytes
        for (size_t n = 1 + rng.below(40); n > 0; --n) v.push_back(static_cast<uint8_t>(rng.below(3) ? 0 : rng.next()));
        break;
      case 6:  // remove a 16-byte aligned chunk
        if (v.size() >= 16) {
          const size_t at = rng.below(v.size() / 16) * 16;
          const size_t n = std::min(v.size() - at, 16 * (1 + rng.below(4)));
          v.erase(v.begin() + at, v.begin() + at + n);
        }
        break;
      case 7:  // duplicate a 16-byte aligned chunk
        if (v.size() >= 16) {
          const size_t at = rng.below(v.size() / 16) * 16;
          const size_t n = std::min(v.size() - at, 16 * (1 + rng.below(4)));
          std::vector<uint8_t> chunk(v.begin() + at, v.begin() + at + n);
          v.insert(v.begin() + rng.below(v.size() / 16 + 1) * 16, chunk.begin(), chunk.end());
        }
        break;
      case 8:  // overwrite a run with random bytes
        if (!v.empty()) {
          const size_t at = rng.below(v.size());
          for (size_t n = 1 + rng.below(8); n > 0 && at + n - 1 < v.size(); --n) v[at + n - 1] = static_cast<uint8_t>(rng.next());
        }
        break;
    }
  }
}

struct Stats {
  size_t mutants = 0;
  size_t parsed = 0;
  size_t initialised = 0;
  size_t executed = 0;
};

// Tensors matching a parsed payload's entries (int8/uint8/bool as their dtype or int8).
std::vector<std::unique_ptr<OwnedTensor>> tensors_for(const Payload& p) {
  std::vector<std::unique_ptr<OwnedTensor>> out;
  for (int output = 0; output < 2; ++output) {
    const uint32_t n = output ? p.num_outputs : p.num_inputs;
    for (uint32_t i = 0; i < n; ++i) {
      const TensorEntry e = tensor_entry(p, output != 0, i);
      ScalarType type = e.dtype;
      if (type == ScalarType::Undefined) {
        type = e.elem_size == 1 ? ScalarType::Char : e.elem_size == 2 ? ScalarType::Short : ScalarType::Int;
      }
      std::vector<int32_t> shape(e.shape, e.shape + e.rank);
      out.push_back(std::make_unique<OwnedTensor>(type, shape));
    }
  }
  return out;
}

// Invariants of an accepted payload: everything it points at is inside the buffer, every
// entry inside its region.
void check_accepted(const Payload& p, const uint8_t* data, size_t size) {
  EXPECT_TRUE(p.cmd_data >= data && p.cmd_data + p.cmd_size <= data + size);
  EXPECT_TRUE(p.weight_data >= data && p.weight_data + p.weight_size <= data + size);
  EXPECT_TRUE(p.num_outputs >= 1 && p.num_inputs <= kMaxTensors && p.num_outputs <= kMaxTensors);
  for (int output = 0; output < 2; ++output) {
    const uint32_t n = output ? p.num_outputs : p.num_inputs;
    for (uint32_t i = 0; i < n; ++i) {
      const TensorEntry e = tensor_entry(p, output != 0, i);
      const uint64_t region = e.region == kRegionScratch        ? p.scratch_size
                              : e.region == kRegionFastScratch ? p.fast_scratch_size
                              : e.region == kRegionInputs      ? p.input_region_size
                                                               : p.output_region_size;
      EXPECT_TRUE(e.region >= kRegionScratch && e.region <= kRegionOutputs);
      EXPECT_LE(static_cast<uint64_t>(e.offset) + e.nbytes, region);
    }
  }
}

void fuzz_one(const std::vector<uint8_t>& seed, uint64_t seed_value, size_t iterations, Stats& stats,
              testing::RecordingDriver& npu) {
  Rng rng(seed_value);
  for (size_t it = 0; it < iterations; ++it) {
    std::vector<uint8_t> mutant = seed;
    mutate(mutant, rng);
    const bool truncated = mutant.size() < seed.size() && std::memcmp(mutant.data(), seed.data(), mutant.size()) == 0;
    auto data = exact_copy(mutant);
    ++stats.mutants;
    Payload p;
    char why[200];
    const Error err = parse_payload(data.get(), mutant.size(), &p, why, sizeof(why));
    if (truncated) {
      EXPECT_NE(err, Error::Ok);  // a strict prefix of a payload is never a payload
    }
    if (err == Error::Ok) {
      ++stats.parsed;
      check_accepted(p, data.get(), mutant.size());
    } else {
      EXPECT_EQ(err, Error::InvalidProgram);
      EXPECT_NE(why[0], '\0');
    }
    if (err != Error::Ok && it % 16 != 0) {
      continue;
    }
    Instance instance(1 << 15);
    const Error init = instance.init(data.get(), mutant.size());
    if (err != Error::Ok) {
      EXPECT_EQ(init, err);
      continue;
    }
    // An accepted payload inits unless its arena does not fit the 32 KiB allocator.
    EXPECT_TRUE(init == Error::Ok || init == Error::MemoryAllocationFailed);
    if (init != Error::Ok) {
      continue;
    }
    ++stats.initialised;
    auto tensors = tensors_for(p);
    std::vector<EValue*> args;
    size_t total = 0;
    for (auto& t : tensors) {
      args.push_back(t->value());
      total += t->nbytes();
    }
    if (total > (1u << 22)) {
      continue;  // keep host memory bounded: shapes up to 4 GiB are valid
    }
    const size_t before = npu.invocations().size();
    EXPECT_EQ(instance.execute(args), Error::Ok);
    EXPECT_EQ(npu.invocations().size(), before + 1);
    npu.clear();
    ++stats.executed;
  }
}
constexpr size_t kIterations = 3000;  // mutants per seed

void fuzz_seeds(const std::vector<std::vector<uint8_t>>& seeds) {
  etarm::ethosu::testing::RecordingDriver npu;
  set_driver(&npu);
  for (size_t s = 0; s < seeds.size(); ++s) {
    SCOPED_TRACE("seed %zu (%zu bytes)", s, seeds[s].size());
    Payload p;
    const Error valid = parse_payload(seeds[s].data(), seeds[s].size(), &p);
    EXPECT_EQ(valid, Error::Ok);  // the seed itself is valid
    if (valid != Error::Ok) continue;
    Stats stats;
    fuzz_one(seeds[s], 0x5eed0000u + s, kIterations, stats, npu);
    std::printf("seed %zu (%zu bytes): %zu mutants, %zu accepted, %zu initialised, %zu executed\n", s,
                seeds[s].size(), stats.mutants, stats.parsed, stats.initialised, stats.executed);
  }
  set_driver(nullptr);
}

// The two synthetic payloads: every feature with etarm_meta, and the upstream form.
TEST(EthosUFuzz, SyntheticPayloads) {
  Spec full = full_spec();
  Spec plain = full;
  plain.meta = false;
  plain.fast_scratch_size = 0;
  plain.inputs[2].region = 1;
  plain.inputs[2].offset = 112;
  plain.outputs[2].region = 1;
  plain.outputs[2].offset = 176;
  fuzz_seeds({serialize(blocks_of(full)), serialize(blocks_of(plain))});
}

// The payloads Vela produced for real models (the program's arguments).
TEST(EthosUFuzz, VelaPayloads) {
  std::vector<std::vector<uint8_t>> seeds;
  for (int i = 0; i < etarm::testing::arg_count(); ++i) {
    seeds.emplace_back();
    ASSERT_TRUE(etarm::testing::read_file(etarm::testing::arg(i), &seeds.back()));
    ASSERT_FALSE(seeds.back().empty());
  }
  ASSERT_FALSE(seeds.empty());
  fuzz_seeds(seeds);
}

}  // namespace
}  // namespace test
}  // namespace ethosu
}  // namespace etarm
