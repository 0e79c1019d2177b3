// Fuzz-style robustness test of //runtime/core: mutates valid .pte files at random and
// drives each mutant through the whole API (load with both verification levels, every
// MethodMeta query, load_method, set_input, stepwise execution). Passing means no crash,
// no sanitizer report and no hang; each mutant may of course be rejected with an Error.
//
// Arguments: ITERATIONS SECONDS SEED A.pte [B.pte ...]
// Stops after ITERATIONS mutants per file or SECONDS in total, whichever comes first.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/exec_aten/util/dim_order_util.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "runtime/testing/executorch.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

using executorch::extension::BufferDataLoader;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Program;
using executorch::runtime::Span;

namespace {

constexpr size_t kMaxBytes = 16u << 20; // skip mutants asking for more memory than this
constexpr int kMaxSteps = 100000; // a mutant may jump backwards forever: bound it

uint64_t rng_state;
uint32_t rnd() {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return static_cast<uint32_t>(rng_state);
}

void mutate(std::vector<uint8_t>* bytes) {
  const int n = 1 + rnd() % 8;
  for (int i = 0; i < n && !bytes->empty(); ++i) {
    const size_t at = rnd() % bytes->size();
    switch (rnd() % 6) {
      case 0:
        (*bytes)[at] ^= static_cast<uint8_t>(1u << (rnd() % 8));
        break;
      case 1:
        (*bytes)[at] = static_cast<uint8_t>(rnd());
        break;
      case 2:
      case 3: {
        static const uint32_t kInteresting[] = {0, 1, 2, 0xff, 0x7fffffff, 0x80000000u, 0xffffffffu, 0xfffffff0u, 64, 4096};
        const uint32_t v = kInteresting[rnd() % (sizeof(kInteresting) / sizeof(kInteresting[0]))];
        const size_t aligned = at & ~size_t(3);
        if (aligned + 4 <= bytes->size()) std::memcpy(bytes->data() + aligned, &v, 4);
        break;
      }
      case 4: {
        const uint16_t v = static_cast<uint16_t>(rnd() % 64);
        const size_t aligned = at & ~size_t(1);
        if (aligned + 2 <= bytes->size()) std::memcpy(bytes->data() + aligned, &v, 2);
        break;
      }
      default:
        if (rnd() % 4 == 0) bytes->resize(at);
        break;
    }
  }
}

struct Stats {
  int load_failed = 0, method_failed = 0, executed = 0, exec_failed = 0;
};

void exercise(const uint8_t* data, size_t size, Program::Verification verification, Stats* stats) {
  BufferDataLoader loader(data, size);
  auto program = Program::load(&loader, verification);
  if (!program.ok()) {
    ++stats->load_failed;
    return;
  }
  for (size_t m = 0; m < program->num_methods(); ++m) {
    (void)program->get_method_name(m);
  }
  (void)program->get_named_data_map();
  auto meta = program->method_meta("forward");
  if (!meta.ok()) {
    ++stats->method_failed;
    return;
  }
  (void)meta->name();
  for (size_t i = 0; i < meta->num_inputs() + 1; ++i) {
    (void)meta->input_tag(i);
    (void)meta->input_tensor_meta(i);
  }
  for (size_t i = 0; i < meta->num_outputs() + 1; ++i) {
    (void)meta->output_tag(i);
    (void)meta->output_tensor_meta(i);
  }
  for (size_t i = 0; i < meta->num_attributes() + 1; ++i) {
    (void)meta->attribute_tensor_meta(i);
  }
  for (size_t i = 0; i < meta->num_backends() + 1; ++i) {
    (void)meta->get_backend_name(i);
  }
  (void)meta->uses_backend("TOSABackend");
  size_t total = 0;
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<Span<uint8_t>> spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers() + 1; ++i) {
    auto size_or = meta->memory_planned_buffer_size(i);
    (void)meta->memory_planned_buffer_device(i);
    if (i == meta->num_memory_planned_buffers()) break;
    if (!size_or.ok() || *size_or < 0 || static_cast<uint64_t>(*size_or) > kMaxBytes - total) {
      ++stats->method_failed;
      return;
    }
    total += static_cast<size_t>(*size_or);
    buffers.emplace_back(static_cast<size_t>(*size_or));
  }
  for (auto& b : buffers) spans.emplace_back(b.data(), b.size());
  HierarchicalAllocator planned({spans.data(), spans.size()});
  std::vector<uint8_t> pool(1 << 18);
  MemoryAllocator allocator(pool.size(), pool.data());
  std::vector<uint8_t> temp_pool(1 << 16);
  MemoryAllocator temp(temp_pool.size(), temp_pool.data());
  MemoryManager memory(&allocator, &planned, &temp);
  auto method = program->load_method("forward", &memory);
  if (!method.ok()) {
    ++stats->method_failed;
    return;
  }
  // Inputs: zero tensors shaped as the metadata says.
  std::vector<std::vector<uint64_t>> storage;
  std::vector<std::vector<int32_t>> sizes, strides;
  std::vector<std::vector<uint8_t>> orders;
  std::vector<executorch::aten::TensorImpl> impls;
  impls.reserve(method->inputs_size());
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    auto info = meta->input_tensor_meta(i);
    if (!info.ok() || info->nbytes() > kMaxBytes) continue;
    sizes.emplace_back(info->sizes().begin(), info->sizes().end());
    orders.emplace_back(info->dim_order().begin(), info->dim_order().end());
    strides.emplace_back(sizes.back().size());
    if (executorch::runtime::dim_order_to_stride(
            sizes.back().data(), orders.back().data(), sizes.back().size(), strides.back().data()) != Error::Ok) {
      continue;
    }
    storage.emplace_back(info->nbytes() / 8 + 1);
    impls.emplace_back(
        info->scalar_type(), sizes.back().size(), sizes.back().data(), storage.back().data(), orders.back().data(),
        strides.back().data());
    (void)method->set_input(EValue(executorch::aten::Tensor(&impls.back())), i);
  }
  Error err = Error::Ok;
  int steps = 0;
  while (steps++ < kMaxSteps) {
    err = method->step();
    if (err != Error::Ok) break;
  }
  if (err == Error::EndOfMethod) {
    ++stats->executed;
    (void)method->reset_execution();
    for (size_t i = 0; i < method->outputs_size(); ++i) (void)method->get_output(i);
  } else {
    ++stats->exec_failed;
  }
}

// Accepts any delegate so the delegate path gets exercised too.
class AcceptAll final : public executorch::runtime::BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }
  executorch::runtime::Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext&,
      executorch::runtime::FreeableBuffer* processed,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec>) const override {
    return processed->size() > 0 ? static_cast<executorch::runtime::DelegateHandle*>(processed)
                                 : executorch::runtime::Result<executorch::runtime::DelegateHandle*>(Error::InvalidProgram);
  }
  Error execute(executorch::runtime::BackendExecutionContext&, executorch::runtime::DelegateHandle*, Span<EValue*> args)
      const override {
    return args.size() > 0 ? Error::Ok : Error::InvalidArgument;
  }
};

// Each program unmutated must run; then its mutants, each rejected with an Error or run.
TEST(Fuzz, MutantsAreRejectedOrRun) {
  ASSERT_GE(etarm::testing::arg_count(), 4);
  const long iterations = std::atol(etarm::testing::arg(0));
  const double seconds = std::atof(etarm::testing::arg(1));
  rng_state = std::strtoull(etarm::testing::arg(2), nullptr, 0) | 1;
  static AcceptAll backend;
  ASSERT_EQ(executorch::runtime::register_backend({"TOSABackend", &backend}), Error::Ok);

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int f = 3; f < etarm::testing::arg_count(); ++f) {
    const char* path = etarm::testing::arg(f);
    SCOPED_TRACE("%s", path);
    std::vector<uint8_t> original;
    ASSERT_TRUE(etarm::testing::read_file(path, &original));
    // Storage with 16-byte alignment, as a .pte placed in flash would have.
    std::vector<long double> storage(original.size() / sizeof(long double) + 2);
    auto* buf = reinterpret_cast<uint8_t*>(storage.data());

    Stats baseline;
    std::memcpy(buf, original.data(), original.size());
    exercise(buf, original.size(), Program::Verification::InternalConsistency, &baseline);
    EXPECT_EQ(baseline.executed, 1);  // the unmutated program runs
    Stats stats;
    long done = 0;
    for (; done < iterations && elapsed() < seconds; ++done) {
      std::vector<uint8_t> mutant = original;
      mutate(&mutant);
      std::memcpy(buf, mutant.data(), mutant.size());
      if (const char* dump = std::getenv("ETARM_FUZZ_DUMP")) {  // debugging: keep the mutant
        if (FILE* out = std::fopen(dump, "wb")) {
          std::fwrite(mutant.data(), 1, mutant.size(), out);
          std::fclose(out);
        }
      }
      exercise(buf, mutant.size(), done % 2 ? Program::Verification::Minimal : Program::Verification::InternalConsistency,
               &stats);
    }
    std::printf(
        "%s: %ld mutants: %d rejected at load, %d at method load, %d failed in execution, %d ran to the end\n", path,
        done, stats.load_failed, stats.method_failed, stats.exec_failed, stats.executed);
  }
  std::printf("%.1f s\n", elapsed());
}

}  // namespace
