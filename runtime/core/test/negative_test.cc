// Negative tests of //runtime/core: every corruption of a .pte returns its Error.
//
// usage: negative_test CPU.pte DELEGATED.pte
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

int failures = 0;

void expect_error(const char* what, Error got, Error want) {
  const bool ok = got == want;
  std::printf("%s %s: got %s, want %s\n", ok ? "ok  " : "FAIL", what, to_string(got), to_string(want));
  failures += !ok;
}

bool read_file(const char* path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return false;
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) out->insert(out->end(), buf, buf + n);
  std::fclose(f);
  return true;
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

} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CPU.pte DELEGATED.pte\n", argv[0]);
    return 2;
  }
  executorch::runtime::runtime_init();
  std::vector<uint8_t> cpu, delegated;
  if (!read_file(argv[1], &cpu) || !read_file(argv[2], &delegated)) {
    std::fprintf(stderr, "cannot read the .pte files\n");
    return 2;
  }

  {
    Pte pte(cpu);
    expect_error("valid program loads and its method initialises", load_and_run(pte), Error::Ok);
    expect_error(
        "valid program passes InternalConsistency", load_and_run(pte, Program::Verification::InternalConsistency),
        Error::Ok);
  }

  // Truncation: every prefix must fail cleanly.
  {
    Pte pte(cpu);
    const size_t sizes[] = {0, 4, 8, 40, 63, 64, 100, cpu.size() / 2, cpu.size() - 1};
    for (size_t s : sizes) {
      if (s >= cpu.size()) continue;
      const std::string what = "truncated to " + std::to_string(s) + " bytes";
      expect_error(what.c_str(), load_program(pte, s), Error::InvalidProgram);
    }
  }

  // Magic / header.
  {
    Pte pte(cpu);
    std::memcpy(pte.data() + 4, "XT12", 4);
    expect_error("wrong magic", load_program(pte, pte.size), Error::InvalidProgram);
    std::memcpy(pte.data() + 4, "ET99", 4);
    expect_error("incompatible version", load_program(pte, pte.size), Error::InvalidProgram);
    const bool statuses = Program::check_header(pte.data(), pte.size) == Program::IncompatibleVersion &&
        Program::check_header(cpu.data(), 10) == Program::ShortData &&
        Program::check_header(cpu.data(), cpu.size()) == Program::CompatibleVersion;
    std::printf("%s check_header statuses\n", statuses ? "ok  " : "FAIL");
    failures += !statuses;
  }
  {
    Pte pte(cpu);
    put32(pte.data(), 0x7ffffff0); // root offset far out of the buffer
    expect_error("root offset out of range", load_program(pte, pte.size), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    if (std::memcmp(pte.data() + 8, "eh00", 4) == 0) {
      const uint64_t huge = uint64_t(1) << 40;
      std::memcpy(pte.data() + 16, &huge, 8); // program size beyond the file
      expect_error("extended header: program size beyond the file", load_program(pte, pte.size), Error::InvalidProgram);
    }
  }

  // Out-of-range indices inside the program.
  {
    Pte pte(cpu);
    fb::Table call = pte.plan().vec(fb::plan::chains).table(0).vec(fb::chain::instructions).table(0).table(fb::instr::args);
    uint8_t* args = const_cast<uint8_t*>(call.vec(1).data());
    put32(args, 100000);
    expect_error("kernel argument index out of range", load_and_run(pte), Error::InvalidProgram);
    expect_error(
        "kernel argument index out of range (InternalConsistency)",
        load_program(pte, pte.size, Program::Verification::InternalConsistency), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    fb::Table call = pte.plan().vec(fb::plan::chains).table(0).vec(fb::chain::instructions).table(0).table(fb::instr::args);
    put32(field_addr(call, 0), 77);
    expect_error("operator index out of range", load_and_run(pte), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    put32(const_cast<uint8_t*>(pte.plan().vec(fb::plan::inputs).data()), 0xfffffff0u);
    expect_error("input index out of range", load_and_run(pte), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    const fb::Vec values = pte.plan().vec(fb::plan::values);
    // First planned tensor: point it at a memory id that has no buffer.
    for (uint32_t i = 0; i < values.size(); ++i) {
      fb::Table t = values.table(i).table(fb::evalue::val);
      if (values.table(i).get<uint8_t>(fb::evalue::val_type) == 5 && t.table(fb::tensor::allocation_info)) {
        put32(field_addr(t.table(fb::tensor::allocation_info), fb::alloc::memory_id), 9);
        break;
      }
    }
    expect_error("memory id out of range", load_and_run(pte), Error::InvalidArgument);
  }
  {
    Pte pte(cpu);
    const fb::Vec values = pte.plan().vec(fb::plan::values);
    for (uint32_t i = 0; i < values.size(); ++i) {
      fb::Table t = values.table(i).table(fb::evalue::val);
      if (values.table(i).get<uint8_t>(fb::evalue::val_type) == 5 && t.get<uint32_t>(fb::tensor::data_buffer_idx) > 0) {
        put32(field_addr(t, fb::tensor::data_buffer_idx), 5000);
        break;
      }
    }
    expect_error("constant buffer index out of range", load_and_run(pte), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    const fb::Vec values = pte.plan().vec(fb::plan::values);
    for (uint32_t i = 0; i < values.size(); ++i) {
      if (values.table(i).get<uint8_t>(fb::evalue::val_type) == 7) { // IntList
        uint8_t* item = const_cast<uint8_t*>(values.table(i).table(fb::evalue::val).vec(0).data());
        const int64_t bad = 1 << 30;
        std::memcpy(item, &bad, 8);
        break;
      }
    }
    expect_error("int list item out of range", load_and_run(pte), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    fb::Table v = pte.plan().vec(fb::plan::values).table(0);
    *field_addr(v, fb::evalue::val_type) = 200;
    expect_error("unknown value type", load_program(pte, pte.size), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    fb::Table t = pte.plan().vec(fb::plan::values).table(0).table(fb::evalue::val);
    *field_addr(t, fb::tensor::scalar_type) = 99;
    expect_error("unknown scalar type", load_and_run(pte), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    fb::Table t = pte.plan().vec(fb::plan::values).table(0).table(fb::evalue::val);
    put32(const_cast<uint8_t*>(t.vec(fb::tensor::sizes).data()), 0x40000000); // numel beyond the data
    expect_error("tensor larger than its constant data", load_and_run(pte), Error::InvalidProgram);
  }
  {
    Pte pte(cpu);
    fb::Table t = pte.plan().vec(fb::plan::values).table(0).table(fb::evalue::val);
    *const_cast<uint8_t*>(t.vec(fb::tensor::dim_order).data()) = 7;
    expect_error("dim order not a permutation", load_and_run(pte), Error::InvalidProgram);
  }

  // Missing kernel: rename the first operator (same length, in place).
  {
    Pte pte(cpu);
    fb::Table op = pte.plan().vec(fb::plan::operators).table(0);
    char* name = const_cast<char*>(op.str(fb::op::name));
    name[std::strlen(name) - 1] = '#';
    expect_error("missing kernel", load_and_run(pte), Error::OperatorMissing);
  }

  // Missing backend, then the same program with a registered stand-in backend.
  {
    Pte pte(delegated);
    expect_error("missing backend", load_and_run(pte), Error::NotFound);
    const char* id = pte.plan().vec(fb::plan::delegates).table(0).str(fb::delegate::id);
    static FakeBackend backend;
    expect_error("register_backend", executorch::runtime::register_backend(Backend{id, &backend}), Error::Ok);
    expect_error(
        "register_backend twice", executorch::runtime::register_backend(Backend{id, &backend}),
        Error::RegistrationAlreadyRegistered);
    {
      BufferDataLoader loader(pte.data(), pte.size);
      auto program = Program::load(&loader);
      auto meta = program->method_meta("forward");
      const bool meta_ok = meta->uses_backend(id) && meta->num_backends() == 1 &&
          std::strcmp(meta->get_backend_name(0).get(), id) == 0;
      std::printf("%s MethodMeta lists backend %s\n", meta_ok ? "ok  " : "FAIL", id);
      failures += !meta_ok;
      MethodMemory memory(*meta);
      auto method = program->load_method("forward", memory.manager());
      expect_error("load_method with the backend registered", method.error(), Error::Ok);
      if (method.ok()) {
        expect_error("execute before inputs are set", method->execute(), Error::InvalidArgument);
        // Feed the inputs the program expects (zeros), then run the delegate.
        std::vector<std::vector<float>> data;
        std::vector<executorch::aten::TensorImpl> impls;
        impls.reserve(method->inputs_size());
        std::vector<std::vector<int32_t>> sizes;
        std::vector<std::vector<uint8_t>> orders;
        std::vector<std::vector<int32_t>> strides;
        for (size_t i = 0; i < method->inputs_size(); ++i) {
          auto info = meta->input_tensor_meta(i);
          sizes.emplace_back(info->sizes().begin(), info->sizes().end());
          orders.emplace_back(info->dim_order().begin(), info->dim_order().end());
          strides.emplace_back(sizes.back().size());
          int32_t s = 1;
          for (size_t d = sizes.back().size(); d-- > 0;) {
            strides.back()[d] = s;
            s *= sizes.back()[d];
          }
          data.emplace_back(info->nbytes() / sizeof(float));
          impls.emplace_back(
              info->scalar_type(), sizes.back().size(), sizes.back().data(), data.back().data(), orders.back().data(),
              strides.back().data());
          expect_error(
              "set_input", method->set_input(EValue(executorch::aten::Tensor(&impls.back())), i), Error::Ok);
        }
        expect_error("execute through the delegate", method->execute(), Error::Ok);
      }
    }
    const bool plumbing = backend.inits == 1 && backend.executes == 1 && backend.destroys == 1 &&
        backend.payload_bytes > 0 && backend.have_allocator && backend.handle_ok && backend.n_args >= 2;
    std::printf(
        "%s backend plumbing: %d init, %d execute, %d destroy, %zu payload bytes, %zu compile specs, %zu args\n",
        plumbing ? "ok  " : "FAIL", backend.inits, backend.executes, backend.destroys, backend.payload_bytes,
        backend.n_specs, backend.n_args);
    failures += !plumbing;
  }

  std::printf("%s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
