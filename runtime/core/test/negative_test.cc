// Negative tests of //runtime/core: every corruption of a .pte returns its Error.
//
// Arguments: CPU.pte DELEGATED.pte
//   CPU.pte        an undelegated program (mlp: permute_copy, addmm, relu)
//   DELEGATED.pte  a program with one delegate (add lowered to the TOSA backend)
//
// Corruptions are made by editing an in-memory copy of the file at places found with
// the runtime's own flatbuffer reader (runtime/core/fb.h), so each one hits exactly the
// field it means to.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "runtime/core/fb.h"
#include "runtime/testing/executorch.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

using executorch::extension::BufferDataLoader;
using executorch::runtime::ArrayRef;
using executorch::runtime::Backend;
using executorch::runtime::BackendExecutionContext;
using executorch::runtime::BackendInitContext;
using executorch::runtime::BackendInterface;
using executorch::runtime::CompileSpec;
using executorch::runtime::DelegateHandle;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;
namespace fb = etarm::fb;

namespace {

// The program argument `index` (CPU.pte or DELEGATED.pte), read once; empty if unreadable.
const std::vector<uint8_t>& program_file(int index) {
  static std::vector<uint8_t> files[2];
  static bool read[2];
  if (!read[index]) {
    read[index] = true;
    if (!etarm::testing::read_file(etarm::testing::arg(index), &files[index])) {
      std::printf("cannot read argument %d (%s): usage: negative_test CPU.pte DELEGATED.pte\n", index,
                  etarm::testing::arg(index) ? etarm::testing::arg(index) : "missing");
    }
  }
  return files[index];
}

// A .pte copy in 16-byte aligned memory.
struct Pte {
  explicit Pte(const std::vector<uint8_t>& bytes) : storage((bytes.size() + 15) / 16 + 1) {
    std::memcpy(data(), bytes.data(), bytes.size());
    size = bytes.size();
  }
  uint8_t* data() {
    return reinterpret_cast<uint8_t*>(storage.data());
  }
  fb::Table root() {
    return fb::root(data());
  }
  fb::Table plan() {
    return root().vec(fb::program::execution_plan).table(0);
  }
  std::vector<long double> storage; // 16-byte aligned
  size_t size;
};

// Writable address of a table's field (found through the verified reader).
uint8_t* field_addr(fb::Table t, unsigned id) {
  return const_cast<uint8_t*>(t.p) + t.field(id);
}
void put32(uint8_t* p, uint32_t v) {
  std::memcpy(p, &v, 4);
}

Error load_program(Pte& pte, size_t size, Program::Verification v = Program::Verification::Minimal) {
  BufferDataLoader loader(pte.data(), size);
  return Program::load(&loader, v).error();
}

// Loads the program and its forward method, runs it if it loads; returns the first error.
// The method's memory-planned buffers (sized by its MethodMeta) and a 1 MiB pool for the rest.
class MethodMemory {
 public:
  explicit MethodMemory(const MethodMeta& meta)
      : buffers_(planned_buffers(meta)),
        spans_(spans_of(buffers_)),
        planned_({spans_.data(), spans_.size()}),
        pool_(1 << 20),
        allocator_(pool_.size(), pool_.data()),
        memory_(&allocator_, &planned_) {}

  MemoryManager* manager() {
    return &memory_;
  }

 private:
  static std::vector<std::vector<uint8_t>> planned_buffers(const MethodMeta& meta) {
    std::vector<std::vector<uint8_t>> buffers;
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      buffers.emplace_back(static_cast<size_t>(meta.memory_planned_buffer_size(i).get()));
    }
    return buffers;
  }
  static std::vector<Span<uint8_t>> spans_of(std::vector<std::vector<uint8_t>>& buffers) {
    std::vector<Span<uint8_t>> spans;
    for (auto& b : buffers) spans.emplace_back(b.data(), b.size());
    return spans;
  }

  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<Span<uint8_t>> spans_;
  HierarchicalAllocator planned_;
  std::vector<uint8_t> pool_;
  MemoryAllocator allocator_;
  MemoryManager memory_;
};

Error load_and_run(Pte& pte, Program::Verification v = Program::Verification::Minimal) {
  BufferDataLoader loader(pte.data(), pte.size);
  auto program = Program::load(&loader, v);
  if (!program.ok()) return program.error();
  auto meta = program->method_meta("forward");
  if (!meta.ok()) return meta.error();
  MethodMemory memory(*meta);
  auto method = program->load_method("forward", memory.manager());
  if (!method.ok()) return method.error();
  return Error::Ok;
}

// A stand-in backend: records what the runtime hands it.
class FakeBackend final : public BackendInterface {
 public:
  bool is_available() const override {
    return true;
  }
  Result<DelegateHandle*> init(BackendInitContext& context, FreeableBuffer* processed, ArrayRef<CompileSpec> specs)
      const override {
    ++inits;
    payload_bytes = processed->size();
    n_specs = specs.size();
    have_allocator = context.get_runtime_allocator() != nullptr;
    processed->Free();
    return const_cast<int*>(&handle_value);
  }
  Error execute(BackendExecutionContext&, DelegateHandle* handle, Span<EValue*> args) const override {
    ++executes;
    n_args = args.size();
    handle_ok = handle == &handle_value;
    return Error::Ok;
  }
  void destroy(DelegateHandle* handle) const override {
    destroys += handle == &handle_value;
  }
  int handle_value = 42;
  mutable int inits = 0, executes = 0, destroys = 0;
  mutable size_t payload_bytes = 0, n_specs = 0, n_args = 0;
  mutable bool have_allocator = false, handle_ok = false;
};

const std::vector<uint8_t>& cpu() {
  return program_file(0);
}

const std::vector<uint8_t>& delegated() {
  return program_file(1);
}

TEST(ValidProgram, LoadsAndInitialises) {
  ASSERT_FALSE(cpu().empty());
  Pte pte(cpu());
  EXPECT_EQ(load_and_run(pte), Error::Ok);
  EXPECT_EQ(load_and_run(pte, Program::Verification::InternalConsistency), Error::Ok);
}

// Every prefix must fail cleanly.
TEST(Corruption, Truncation) {
  ASSERT_FALSE(cpu().empty());
  Pte pte(cpu());
  const size_t sizes[] = {0, 4, 8, 40, 63, 64, 100, cpu().size() / 2, cpu().size() - 1};
  for (size_t s : sizes) {
    if (s >= cpu().size()) continue;
    SCOPED_TRACE("truncated to %zu bytes", s);
    EXPECT_EQ(load_program(pte, s), Error::InvalidProgram);
  }
}

TEST(Corruption, MagicAndHeader) {
  ASSERT_FALSE(cpu().empty());
  Pte pte(cpu());
  std::memcpy(pte.data() + 4, "XT12", 4);
  EXPECT_EQ(load_program(pte, pte.size), Error::InvalidProgram);
  std::memcpy(pte.data() + 4, "ET99", 4);
  EXPECT_EQ(load_program(pte, pte.size), Error::InvalidProgram);
  EXPECT_EQ(Program::check_header(pte.data(), pte.size), Program::IncompatibleVersion);
  EXPECT_EQ(Program::check_header(cpu().data(), 10), Program::ShortData);
  EXPECT_EQ(Program::check_header(cpu().data(), cpu().size()), Program::CompatibleVersion);
}

// How far a corrupted program is taken: loaded, or loaded and its method initialised
// (which runs the semantic checks), with the given verification.
enum class Stage { kLoad, kLoadMethod };

// A copy of CPU.pte changed by `corrupt` (false: the field to change was not found), then
// taken to `stage`; the first Error.
template <typename Corrupt>
Error corrupted(Corrupt corrupt, Stage stage = Stage::kLoadMethod,
                Program::Verification verification = Program::Verification::Minimal) {
  if (cpu().empty()) {
    ADD_FAILURE("CPU.pte is missing");
    return Error::Internal;
  }
  Pte pte(cpu());
  if (!corrupt(pte)) {
    ADD_FAILURE("the program has no such field to corrupt");
    return Error::Internal;
  }
  return stage == Stage::kLoad ? load_program(pte, pte.size, verification) : load_and_run(pte, verification);
}

TEST(Corruption, RootOffsetOutOfRange) {
  const auto corrupt = [](Pte& pte) { return put32(pte.data(), 0x7ffffff0), true; };  // far out of the buffer
  EXPECT_EQ(corrupted(corrupt, Stage::kLoad), Error::InvalidProgram);
}

TEST(Corruption, ProgramSizeBeyondTheFile) {
  const auto corrupt = [](Pte& pte) {
    const uint64_t huge = uint64_t(1) << 40;
    std::memcpy(pte.data() + 16, &huge, 8);
    return std::memcmp(pte.data() + 8, "eh00", 4) == 0;  // the extended header is there
  };
  EXPECT_EQ(corrupted(corrupt, Stage::kLoad), Error::InvalidProgram);
}

fb::Table first_kernel_call(Pte& pte) {
  return pte.plan().vec(fb::plan::chains).table(0).vec(fb::chain::instructions).table(0).table(fb::instr::args);
}

TEST(Corruption, KernelArgumentIndexOutOfRange) {
  const auto corrupt = [](Pte& pte) {
    return put32(const_cast<uint8_t*>(first_kernel_call(pte).vec(1).data()), 100000), true;
  };
  EXPECT_EQ(corrupted(corrupt), Error::InvalidProgram);
  EXPECT_EQ(corrupted(corrupt, Stage::kLoad, Program::Verification::InternalConsistency), Error::InvalidProgram);
}

TEST(Corruption, OperatorIndexOutOfRange) {
  EXPECT_EQ(corrupted([](Pte& pte) { return put32(field_addr(first_kernel_call(pte), 0), 77), true; }),
            Error::InvalidProgram);
}

TEST(Corruption, InputIndexOutOfRange) {
  EXPECT_EQ(corrupted([](Pte& pte) {
              return put32(const_cast<uint8_t*>(pte.plan().vec(fb::plan::inputs).data()), 0xfffffff0u), true;
            }),
            Error::InvalidProgram);
}

// The first tensor value for which `pick` holds, or a null table.
template <typename Pick>
fb::Table first_tensor(Pte& pte, Pick pick) {
  const fb::Vec values = pte.plan().vec(fb::plan::values);
  for (uint32_t i = 0; i < values.size(); ++i) {
    fb::Table t = values.table(i).table(fb::evalue::val);
    if (values.table(i).get<uint8_t>(fb::evalue::val_type) == 5 && pick(t)) return t;
  }
  return fb::Table{nullptr};
}

TEST(Corruption, MemoryIdWithoutABuffer) {
  const auto corrupt = [](Pte& pte) {
    fb::Table t = first_tensor(pte, [](fb::Table t) { return t.table(fb::tensor::allocation_info).p != nullptr; });
    if (t.p == nullptr) return false;
    put32(field_addr(t.table(fb::tensor::allocation_info), fb::alloc::memory_id), 9);
    return true;
  };
  EXPECT_EQ(corrupted(corrupt), Error::InvalidArgument);
}

TEST(Corruption, ConstantBufferIndexOutOfRange) {
  const auto corrupt = [](Pte& pte) {
    fb::Table t = first_tensor(pte, [](fb::Table t) { return t.get<uint32_t>(fb::tensor::data_buffer_idx) > 0; });
    if (t.p == nullptr) return false;
    put32(field_addr(t, fb::tensor::data_buffer_idx), 5000);
    return true;
  };
  EXPECT_EQ(corrupted(corrupt), Error::InvalidProgram);
}

TEST(Corruption, IntListItemOutOfRange) {
  const auto corrupt = [](Pte& pte) {
    const fb::Vec values = pte.plan().vec(fb::plan::values);
    for (uint32_t i = 0; i < values.size(); ++i) {
      if (values.table(i).get<uint8_t>(fb::evalue::val_type) == 7) {  // IntList
        uint8_t* item = const_cast<uint8_t*>(values.table(i).table(fb::evalue::val).vec(0).data());
        const int64_t bad = 1 << 30;
        std::memcpy(item, &bad, 8);
        return true;
      }
    }
    return false;
  };
  EXPECT_EQ(corrupted(corrupt), Error::InvalidProgram);
}

TEST(Corruption, UnknownValueType) {
  const auto corrupt = [](Pte& pte) {
    return *field_addr(pte.plan().vec(fb::plan::values).table(0), fb::evalue::val_type) = 200, true;
  };
  EXPECT_EQ(corrupted(corrupt, Stage::kLoad), Error::InvalidProgram);
}

fb::Table first_value(Pte& pte) {
  return pte.plan().vec(fb::plan::values).table(0).table(fb::evalue::val);
}

TEST(Corruption, UnknownScalarType) {
  EXPECT_EQ(corrupted([](Pte& pte) { return *field_addr(first_value(pte), fb::tensor::scalar_type) = 99, true; }),
            Error::InvalidProgram);
}

TEST(Corruption, TensorLargerThanItsData) {
  const auto corrupt = [](Pte& pte) {
    return put32(const_cast<uint8_t*>(first_value(pte).vec(fb::tensor::sizes).data()), 0x40000000), true;
  };
  EXPECT_EQ(corrupted(corrupt), Error::InvalidProgram);
}

TEST(Corruption, DimOrderNotAPermutation) {
  const auto corrupt = [](Pte& pte) {
    return *const_cast<uint8_t*>(first_value(pte).vec(fb::tensor::dim_order).data()) = 7, true;
  };
  EXPECT_EQ(corrupted(corrupt), Error::InvalidProgram);
}

// The first operator renamed in place (same length): no kernel has that name.
TEST(Missing, Kernel) {
  const auto corrupt = [](Pte& pte) {
    char* name = const_cast<char*>(pte.plan().vec(fb::plan::operators).table(0).str(fb::op::name));
    name[std::strlen(name) - 1] = '#';
    return true;
  };
  EXPECT_EQ(corrupted(corrupt), Error::OperatorMissing);
}

// Inputs the program expects (zeros), set on the method; the tensors live in `this`.
class ZeroInputs {
 public:
  ZeroInputs(const MethodMeta& meta, executorch::runtime::Method& method) {
    impls_.reserve(method.inputs_size());
    for (size_t i = 0; i < method.inputs_size(); ++i) {
      auto info = meta.input_tensor_meta(i);
      sizes_.emplace_back(info->sizes().begin(), info->sizes().end());
      orders_.emplace_back(info->dim_order().begin(), info->dim_order().end());
      strides_.emplace_back(sizes_.back().size());
      int32_t s = 1;
      for (size_t d = sizes_.back().size(); d-- > 0;) {
        strides_.back()[d] = s;
        s *= sizes_.back()[d];
      }
      data_.emplace_back(info->nbytes() / sizeof(float));
      impls_.emplace_back(info->scalar_type(), sizes_.back().size(), sizes_.back().data(), data_.back().data(),
                          orders_.back().data(), strides_.back().data());
      SCOPED_TRACE("input %zu", i);
      EXPECT_EQ(method.set_input(EValue(executorch::aten::Tensor(&impls_.back())), i), Error::Ok);
    }
  }

 private:
  std::vector<std::vector<float>> data_;
  std::vector<std::vector<int32_t>> sizes_;
  std::vector<std::vector<uint8_t>> orders_;
  std::vector<std::vector<int32_t>> strides_;
  std::vector<executorch::aten::TensorImpl> impls_;
};

// A missing backend, then the same program with a stand-in backend registered: what the
// runtime hands the backend (payload, compile specs, allocator, handle, arguments).
TEST(Missing, BackendThenAStandIn) {
  ASSERT_FALSE(delegated().empty());
  Pte pte(delegated());
  EXPECT_EQ(load_and_run(pte), Error::NotFound);
  const char* id = pte.plan().vec(fb::plan::delegates).table(0).str(fb::delegate::id);
  static FakeBackend backend;
  EXPECT_EQ(executorch::runtime::register_backend(Backend{id, &backend}), Error::Ok);
  EXPECT_EQ(executorch::runtime::register_backend(Backend{id, &backend}), Error::RegistrationAlreadyRegistered);
  {
    BufferDataLoader loader(pte.data(), pte.size);
    auto program = Program::load(&loader);
    ASSERT_TRUE(program.ok());
    auto meta = program->method_meta("forward");
    ASSERT_TRUE(meta.ok());
    EXPECT_TRUE(meta->uses_backend(id));
    EXPECT_EQ(meta->num_backends(), 1u);
    EXPECT_STREQ(meta->get_backend_name(0).get(), id);
    MethodMemory memory(*meta);
    auto method = program->load_method("forward", memory.manager());
    ASSERT_EQ(method.error(), Error::Ok);
    EXPECT_EQ(method->execute(), Error::InvalidArgument);  // before the inputs are set
    ZeroInputs inputs(*meta, *method);
    EXPECT_EQ(method->execute(), Error::Ok);
  }
  std::printf("backend plumbing: %d init, %d execute, %d destroy, %zu payload bytes, %zu compile specs, %zu args\n",
              backend.inits, backend.executes, backend.destroys, backend.payload_bytes, backend.n_specs,
              backend.n_args);
  EXPECT_EQ(backend.inits, 1);
  EXPECT_EQ(backend.executes, 1);
  EXPECT_EQ(backend.destroys, 1);
  EXPECT_GT(backend.payload_bytes, 0u);
  EXPECT_TRUE(backend.have_allocator);
  EXPECT_TRUE(backend.handle_ok);
  EXPECT_GE(backend.n_args, 2u);
}

}  // namespace
