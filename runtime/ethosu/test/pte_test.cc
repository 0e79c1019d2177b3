// A .pte compiled by //:etarm for ethos-u55-128 (-q) runs on the genuine host ExecuTorch
// runtime with the EthosUBackend delegate and the recording fake driver:
//  - the program loads; execute hands the driver exactly the command stream and weights
//    Vela produced (compared with the payload's own blocks, extracted by etarm's Python
//    reader), the arena of scratch_size bytes, and the inputs (quantized on CPU by the
//    program) at Vela's input offsets;
//  - what the fake writes at the output offsets comes back out of the program, through
//    the CPU dequantize;
//  - without a driver, execute fails with NotSupported;
//  - the same .pte with its payload corrupted fails to load, without crashing.
//
// Arguments: MODEL.pte CMD.bin WEIGHTS.bin IO.txt
// (IO.txt from extract_ethosu_payload.py; the program's input i is quantized into the
// delegate's input i, as in the models used here).
#include <cmath>
#include <fstream>
#include <sstream>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include "runtime/ethosu/test/test_util.h"
#include "runtime/ethosu/testing/recording_driver.h"

namespace etarm {
namespace ethosu {
namespace test {
namespace {

using testing::RecordingDriver;

struct IoFact {
  std::string dtype;
  size_t offset;
  uint32_t region;
  size_t nbytes;
  double scale;
  int zero_point;
};

struct Facts {
  size_t scratch_size = 0;
  size_t fast_scratch_size = 0;
  std::vector<IoFact> inputs;
  std::vector<IoFact> outputs;
};

Facts read_facts(const char* path) {
  Facts facts;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "scratch_size") {
      words >> facts.scratch_size;
    } else if (kind == "fast_scratch_size") {
      words >> facts.fast_scratch_size;
    } else if (kind == "input" || kind == "output") {
      IoFact f;
      size_t index;
      std::string key;
      words >> index >> f.dtype >> key >> f.offset >> key >> f.region >> key >> f.nbytes >> key >> f.scale >> key >>
          f.zero_point;
      (kind == "input" ? facts.inputs : facts.outputs).push_back(f);
    }
  }
  return facts;
}

// A loaded method with its memory.
struct Loaded {
  std::vector<std::vector<uint8_t>> planned;
  std::vector<executorch::runtime::Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned_memory;
  std::vector<uint8_t> pool = std::vector<uint8_t>(1 << 20);
  std::unique_ptr<MemoryAllocator> allocator;
  std::unique_ptr<MemoryManager> memory;
  std::unique_ptr<Method> method;
  Error error = Error::Ok;
};

std::unique_ptr<Loaded> load(Program& program) {
  auto l = std::make_unique<Loaded>();
  auto meta = program.method_meta("forward");
  if (!meta.ok()) {
    l->error = meta.error();
    return l;
  }
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    l->planned.emplace_back(meta->memory_planned_buffer_size(i).get());
  }
  for (auto& b : l->planned) {
    l->spans.emplace_back(b.data(), b.size());
  }
  l->planned_memory = std::make_unique<HierarchicalAllocator>(
      executorch::runtime::Span<executorch::runtime::Span<uint8_t>>(l->spans.data(), l->spans.size()));
  l->allocator = std::make_unique<MemoryAllocator>(static_cast<uint32_t>(l->pool.size()), l->pool.data());
  l->memory = std::make_unique<MemoryManager>(l->allocator.get(), l->planned_memory.get());
  auto method = program.load_method("forward", l->memory.get());
  if (!method.ok()) {
    l->error = method.error();
    return l;
  }
  l->method = std::make_unique<Method>(std::move(method.get()));
  return l;
}

// Float inputs whose quantization is known exactly: x = (q - zero_point) * scale.
int8_t input_q(size_t input, size_t k) {
  return static_cast<int8_t>(static_cast<int>((k * 37 + input * 101 + 11) % 256) - 128);
}

void run(const char* pte_path, const std::vector<uint8_t>& cmd, const std::vector<uint8_t>& weights,
         const Facts& facts) {
  auto loader = executorch::extension::FileDataLoader::from(pte_path);
  ASSERT_TRUE(loader.ok());
  auto program = Program::load(&loader.get());
  ASSERT_TRUE(program.ok());
  auto loaded = load(program.get());
  EXPECT_EQ(loaded->error, Error::Ok);
  if (!loaded->method) return;
  Method& method = *loaded->method;
  auto meta = program->method_meta("forward");
  EXPECT_EQ(meta->num_inputs(), facts.inputs.size());

  // Program inputs.
  std::vector<std::unique_ptr<OwnedTensor>> inputs;
  for (size_t i = 0; i < meta->num_inputs() && i < facts.inputs.size(); ++i) {
    auto tm = meta->input_tensor_meta(i);
    EXPECT_EQ(tm->scalar_type(), ScalarType::Float);
    std::vector<int32_t> sizes(tm->sizes().begin(), tm->sizes().end());
    inputs.push_back(std::make_unique<OwnedTensor>(ScalarType::Float, sizes));
    OwnedTensor& t = *inputs.back();
    const IoFact& f = facts.inputs[i];
    EXPECT_EQ(t.nbytes() / 4, f.nbytes);  // int8 at the NPU boundary
    for (size_t k = 0; k < t.nbytes() / 4; ++k) {
      const float x = static_cast<float>((input_q(i, k) - f.zero_point) * f.scale);
      std::memcpy(t.bytes() + 4 * k, &x, 4);
    }
  }
  // Memory planning may reuse an input's buffer once it is consumed: set them before every
  // execute.
  auto set_inputs = [&] {
    for (size_t i = 0; i < inputs.size(); ++i) {
      EXPECT_EQ(method.set_input(*inputs[i]->value(), i), Error::Ok);
    }
  };

  // Without a driver the delegate says so.
  EXPECT_EQ(driver(), nullptr);
  set_inputs();
  EXPECT_EQ(method.execute(), Error::NotSupported);

  RecordingDriver npu;
  set_driver(&npu);
  for (size_t call = 0; call < 2; ++call) {
    set_inputs();
    EXPECT_EQ(method.execute(), Error::Ok);
    EXPECT_EQ(npu.invocations().size(), call + 1);
    if (npu.invocations().size() != call + 1) break;
    const auto& inv = npu.invocations()[call];
    // Exactly Vela's command stream and weights.
    EXPECT_EQ(inv.command_stream.size(), cmd.size());
    EXPECT_EQ(inv.command_stream, cmd);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(inv.command_stream_address) % 16, 0u);
    EXPECT_EQ(inv.regions.size(), size_t{kNumRegions});
    if (inv.regions.size() != kNumRegions) break;
    EXPECT_EQ(inv.regions[0].size, weights.size());
    EXPECT_EQ(inv.regions[0].bytes, weights);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(inv.regions[0].address) % 16, 0u);
    EXPECT_EQ(inv.regions[1].size, facts.scratch_size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(inv.regions[1].address) % 16, 0u);
    EXPECT_EQ(inv.regions[2].size, facts.fast_scratch_size);
    // The quantized inputs at Vela's offsets.
    for (size_t i = 0; i < facts.inputs.size(); ++i) {
      const IoFact& f = facts.inputs[i];
      EXPECT_EQ(f.dtype, "int8");
      const std::vector<uint8_t> found = inv.bytes(f.region, f.offset, f.nbytes);
      EXPECT_EQ(found.size(), f.nbytes);
      if (found.size() != f.nbytes) continue;
      size_t mismatches = 0;
      for (size_t k = 0; k < f.nbytes; ++k) {
        const bool differs = static_cast<int8_t>(found[k]) != input_q(i, k);
        if (differs && mismatches < 8) {
          std::printf("  input %zu value %zu: %d in the arena, %d expected\n", i, k, static_cast<int8_t>(found[k]),
                      input_q(i, k));
        }
        mismatches += differs;
      }
      std::printf("input %zu: %zu int8 values at region %u offset %zu, %zu differ from the expected quantization\n", i,
                  f.nbytes, f.region, f.offset, mismatches);
      EXPECT_EQ(mismatches, 0u);
    }
    // The fake's pattern at the output offsets, dequantized by the program.
    EXPECT_EQ(method.outputs_size(), facts.outputs.size());
    for (size_t o = 0; o < method.outputs_size() && o < facts.outputs.size(); ++o) {
      const IoFact& f = facts.outputs[o];
      const Tensor& t = method.get_output(o).toTensor();
      EXPECT_EQ(t.scalar_type(), ScalarType::Float);
      EXPECT_EQ(static_cast<size_t>(t.numel()), f.nbytes);
      const float* got = t.const_data_ptr<float>();
      double worst = 0;
      for (size_t k = 0; k < f.nbytes && k < static_cast<size_t>(t.numel()); ++k) {
        const int8_t q = static_cast<int8_t>(RecordingDriver::pattern_byte(f.region, f.offset + k, call));
        const double want = (q - f.zero_point) * f.scale;
        worst = std::fmax(worst, std::fabs(got[k] - want));
      }
      std::printf("call %zu output %zu: %zu values, max |output - dequantized pattern| = %g (scale %g)\n", call, o,
                  f.nbytes, worst, f.scale);
      EXPECT_LE(worst, f.scale * 1e-3);
    }
  }
  set_driver(nullptr);
}

// Corrupts the payload inside the .pte (found by its first block name) and loads it.
void run_corrupted(const char* pte_path) {
  std::vector<uint8_t> pte;
  ASSERT_TRUE(etarm::testing::read_file(pte_path, &pte));
  const char kStart[] = "vela_bin_stream";
  size_t at = SIZE_MAX;
  for (size_t i = 0; i + sizeof(kStart) <= pte.size(); ++i) {
    if (std::memcmp(pte.data() + i, kStart, sizeof(kStart)) == 0) {
      at = i;
      break;
    }
  }
  EXPECT_NE(at, SIZE_MAX);
  if (at == SIZE_MAX) return;
  struct Case {
    const char* name;
    size_t offset;  // from the payload's start
    uint32_t value;
  };
  std::vector<uint8_t> view(pte.begin() + at, pte.end());
  const size_t cmd = block_offset(view, "cmd_data");
  const size_t inputs = block_offset(view, "inputs");
  const size_t outputs = block_offset(view, "outputs");
  const Case cases[] = {
      {"start block name", 0, 0x41414141},
      {"cmd_data size past the end", cmd + 16, 0x7fffff00},
      {"command stream magic", cmd + 32, 0x31504f58},
      {"negative input count", inputs + 32, 0xffffffff},
      {"input offset out of the arena", inputs + 32 + 4 + 20, 0x7ffffff0},
      {"output region 0", outputs + 32 + 4 + 24, 0},
  };
  RecordingDriver npu;
  set_driver(&npu);
  for (const Case& c : cases) {
    std::vector<uint8_t> bad = pte;
    set_u32(bad.data() + at + c.offset, c.value);
    executorch::extension::BufferDataLoader loader(bad.data(), bad.size());
    auto program = Program::load(&loader);
    Error err = program.error();
    if (program.ok()) {
      err = load(program.get())->error;
    }
    std::printf("corrupted .pte (%s): load_method error 0x%x\n", c.name, static_cast<unsigned>(err));
    EXPECT_NE(err, Error::Ok);
  }
  EXPECT_TRUE(npu.invocations().empty());
  set_driver(nullptr);
}

// The program's arguments: MODEL.pte CMD.bin WEIGHTS.bin IO.txt.
bool have_arguments() {
  if (etarm::testing::arg_count() == 4) return true;
  ADD_FAILURE("usage: pte_test MODEL.pte CMD.bin WEIGHTS.bin IO.txt (got %d arguments)", etarm::testing::arg_count());
  return false;
}

TEST(EthosUPte, RunsOnTheRecordingDriver) {
  if (!have_arguments()) return;
  ASSERT_NE(backend(), nullptr);
  const Facts facts = read_facts(etarm::testing::arg(3));
  ASSERT_FALSE(facts.inputs.empty() || facts.outputs.empty());
  std::vector<uint8_t> cmd;
  std::vector<uint8_t> weights;
  ASSERT_TRUE(etarm::testing::read_file(etarm::testing::arg(1), &cmd));
  ASSERT_TRUE(etarm::testing::read_file(etarm::testing::arg(2), &weights));
  run(etarm::testing::arg(0), cmd, weights, facts);
}

TEST(EthosUPte, CorruptedPayloadsFailToLoad) {
  if (!have_arguments()) return;
  run_corrupted(etarm::testing::arg(0));
}

}  // namespace
}  // namespace test
}  // namespace ethosu
}  // namespace etarm
