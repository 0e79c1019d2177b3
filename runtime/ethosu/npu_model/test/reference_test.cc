// The proof of the NPU model: for every case (a model compiled by etarm for an Ethos-U
// target, see make_case.py), each Ethos-U partition's command stream runs on the model
// through NpuModelDriver with the partition's regions laid out as the delegate lays them
// out, on random, all-minimum, all-maximum and all-zero inputs; every output value must
// equal what the TOSA reference model computed on the partition's .tosa. A difference is a
// failure. The arena starts filled with a pattern, not zeros, so nothing may depend on it.
//
// Arguments: CASE files, or a .txt file naming case files (one per line) beside it.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/npu_model_driver.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
#include "runtime/ethosu/payload.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

// A 16-byte aligned byte buffer (the regions the delegate hands the driver are).
struct Aligned {
  explicit Aligned(size_t n) : storage((n + 31) / 16 + 1) {}
  uint8_t* data() {
    return reinterpret_cast<uint8_t*>(storage.data());
  }
  struct alignas(16) Chunk {
    uint8_t b[16];
  };
  std::vector<Chunk> storage;
};

struct Totals {
  size_t values = 0;
  size_t differ = 0;
};

// How many bit-exact cases used each feature of the NPU at least once.
size_t g_feature_cases[static_cast<size_t>(Feature::kCount)] = {};
size_t g_case_features[static_cast<size_t>(Feature::kCount)] = {};

size_t element_size(const TensorEntry& e) {
  return e.elem_size;
}

int64_t element(const uint8_t* p, size_t size) {
  switch (size) {
    case 1:
      return static_cast<int8_t>(p[0]);
    case 2:
      return static_cast<int16_t>(p[0] | (p[1] << 8));
    default: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
  }
}

void run_partition(const std::string& name, const std::string& target, size_t index, const PartitionCase& pc,
                   Totals* totals) {
  SCOPED_TRACE("%s partition %zu", name.c_str(), index);
  Payload payload;
  char why[160] = {};
  ASSERT_EQ(parse_payload(pc.payload.data(), pc.payload.size(), &payload, why, sizeof(why)), Error::Ok);
  Aligned cmd(payload.cmd_size);
  std::memcpy(cmd.data(), payload.cmd_data, payload.cmd_size);
  Aligned weights(payload.weight_size);
  std::memcpy(weights.data(), payload.weight_data, payload.weight_size);
  Aligned scratch(payload.scratch_size);
  Aligned fast(payload.fast_scratch_size);
  NpuModelDriver npu(target.c_str());

  for (const InputSet& set : pc.sets) {
    SCOPED_TRACE("inputs %s", set.label.c_str());
    ASSERT_EQ(set.inputs.size(), payload.num_inputs);
    ASSERT_EQ(set.outputs.size(), payload.num_outputs);
    std::memset(scratch.data(), 0xA5, payload.scratch_size);
    std::memset(fast.data(), 0x5A, payload.fast_scratch_size);
    BaseAddress regions[kNumRegions] = {
        {weights.data(), payload.weight_size},
        {scratch.data(), payload.scratch_size},
        {payload.fast_scratch_size ? fast.data() : nullptr, payload.fast_scratch_size},
    };
    for (uint32_t i = 0; i < payload.num_inputs; ++i) {
      const TensorEntry e = tensor_entry(payload, false, i);
      ASSERT_EQ(set.inputs[i].size(), e.nbytes);
      std::memcpy(regions[e.region].address + e.offset, set.inputs[i].data(), e.nbytes);
    }
    const Error err = npu.invoke(CommandStream{cmd.data(), payload.cmd_size}, regions, kNumRegions);
    if (err != Error::Ok) {
      ADD_FAILURE("%s partition %zu inputs %s: the NPU model failed: %s", name.c_str(), index, set.label.c_str(),
                  npu.last_error());
      continue;
    }
    for (uint32_t o = 0; o < payload.num_outputs; ++o) {
      const TensorEntry e = tensor_entry(payload, true, o);
      const std::vector<uint8_t>& want = set.outputs[o];
      ASSERT_EQ(want.size(), e.nbytes);
      const uint8_t* got = regions[e.region].address + e.offset;
      const size_t size = element_size(e);
      const size_t count = e.nbytes / size;
      size_t differ = 0;
      for (size_t k = 0; k < count; ++k) {
        const int64_t g = element(got + k * size, size);
        const int64_t w = element(want.data() + k * size, size);
        if (g != w && differ++ < 5) {
          std::printf("  %s p%zu %s output %u value %zu: NPU model %" PRId64 ", TOSA reference %" PRId64 "\n",
                      name.c_str(), index, set.label.c_str(), o, k, g, w);
        }
      }
      totals->values += count;
      totals->differ += differ;
      if (differ != 0) {
        ADD_FAILURE("%s partition %zu inputs %s output %u: %zu of %zu values differ from the TOSA reference model",
                    name.c_str(), index, set.label.c_str(), o, differ, count);
      }
    }
  }
  for (size_t f = 0; f < static_cast<size_t>(Feature::kCount); ++f) {
    g_case_features[f] += npu.model().counts().features[f];
  }
  std::printf("%-24s partition %zu: %zu NPU operations, %zu DMAs per run, %zu input sets\n", name.c_str(), index,
              npu.model().counts().operations, npu.model().counts().dmas, pc.sets.size());
}

TEST(NpuModel, EqualsTheTosaReferenceModel) {
  const std::vector<std::string> paths = case_paths();
  ASSERT_GT(paths.size(), 0u);
  Totals all;
  for (const std::string& path_string : paths) {
    const char* path = path_string.c_str();
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(etarm::testing::read_file(path, &bytes));
    Case c;
    CaseReader reader(bytes);
    if (!reader.read(&c)) {
      ADD_FAILURE("%s: not a readable case file", path);
      continue;
    }
    const std::string name = case_name(path);
    Totals totals;
    std::memset(g_case_features, 0, sizeof(g_case_features));
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      run_partition(name, c.target, p, c.partitions[p], &totals);
    }
    for (size_t f = 0; f < static_cast<size_t>(Feature::kCount); ++f) {
      g_feature_cases[f] += totals.differ == 0 && totals.values > 0 && g_case_features[f] > 0 ? 1 : 0;
    }
    std::printf("%-24s %s: %zu output values compared, %zu differ%s\n", name.c_str(), c.target.c_str(),
                totals.values, totals.differ, totals.differ == 0 && totals.values > 0 ? " (bit-exact)" : "");
    all.values += totals.values;
    all.differ += totals.differ;
  }
  std::printf("all %zu cases: %zu output values compared, %zu differ\n", paths.size(), all.values, all.differ);
  std::printf("bit-exact cases using each NPU feature:\n");
  for (size_t f = 0; f < static_cast<size_t>(Feature::kCount); ++f) {
    std::printf("  %-28s %zu\n", feature_name(static_cast<Feature>(f)), g_feature_cases[f]);
  }
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
