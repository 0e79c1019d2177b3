// etarm's executor runner: loads one method of a .pte through any DataLoader, carves every
// buffer it needs out of one caller-provided arena (no heap), feeds the inputs, executes,
// and prints the outputs, the execution time and the memory used.
//
// Written against ExecuTorch's public runtime headers only, so the same code runs on the
// genuine host runtime (libexecutorch.so) and on //runtime/core (bare metal, aarch64-musl);
// the mains (main_linux.cc, main_bare_metal.cc) pick the loader, inputs and clock.
//
// Output format (what tests parse): for output i, a header line
//   output <i>: <dtype> [<sizes>]
// then the values, 8 per line, each line starting with "out<i>:"; floats as %.9g (which
// round-trips a float32 exactly), integers in decimal, bools as 0/1.
#ifndef ETARM_RUNTIME_RUNNER_RUNNER_H_
#define ETARM_RUNTIME_RUNNER_RUNNER_H_

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

namespace etarm {
namespace runner {

using executorch::runtime::Error;

// Most memory-planned buffers and inputs one method may have.
constexpr size_t kMaxPlannedBuffers = 16;
constexpr size_t kMaxInputs = 32;

// Where the arena's bytes went (print_report prints it; etarm.runtime returns it).
struct MemoryUse {
  size_t arena_bytes;
  size_t planned_bytes;  // the method's memory-planned buffers
  size_t input_bytes;    // the input tensors the runner owns
  size_t method_bytes;   // the method's own allocations (values, delegates' state)
  size_t temp_bytes;     // reserved for the temporary (scratch) allocator
  size_t used_bytes() const {
    return planned_bytes + input_bytes + method_bytes;
  }
};

class Runner {
 public:
  // `arena` holds everything: planned buffers, input tensors, the method's own
  // allocations and the temporary (scratch) allocator. It must outlive the Runner.
  Runner(uint8_t* arena, size_t arena_bytes);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Loads the program and `method_name` (once per Runner). Prints what failed (e.g.
  // "arena too small").
  Error load(executorch::runtime::DataLoader* loader, const char* method_name = "forward");

  // Sets every tensor input from `data`: each input's bytes (numel * element size, in the
  // tensor's dtype, contiguous), in input order, with nothing left over. `data == nullptr`
  // sets every input to ones (like ExecuTorch's executor_runner).
  Error set_inputs(const void* data, size_t size);

  // Executes the method once, timing it with `now()` (ticks; see set_clock).
  Error execute();

  // The loaded method (valid after a successful load()).
  executorch::runtime::Method& method();

  // Prints every output (format in the file comment).
  void print_outputs() const;
  // Prints "time: ..." and "memory: ..." lines.
  void print_report() const;

  // The clock execute() uses: ticks since an arbitrary origin, and how many ticks make a
  // microsecond (0: the unit is unknown, the report prints raw ticks).
  void set_clock(uint64_t (*now)(), uint64_t ticks_per_us, const char* tick_name);

  MemoryUse memory_use() const;

  uint64_t execute_ticks() const {
    return execute_ticks_;
  }

 private:
  uint8_t* take(size_t bytes, size_t alignment);  // from the arena, nullptr if full

  uint8_t* const arena_;
  const size_t arena_bytes_;
  size_t arena_used_ = 0;
  size_t planned_bytes_ = 0;
  size_t input_bytes_ = 0;
  size_t temp_bytes_ = 0;

  // Storage for the runtime objects (constructed in place: they have no default state).
  alignas(16) uint8_t program_storage_[sizeof(executorch::runtime::Program)];
  alignas(16) uint8_t method_storage_[sizeof(executorch::runtime::Method)];
  alignas(16) uint8_t planned_storage_[sizeof(executorch::runtime::HierarchicalAllocator)];
  alignas(16) uint8_t method_allocator_storage_[sizeof(executorch::runtime::MemoryAllocator)];
  alignas(16) uint8_t temp_allocator_storage_[sizeof(executorch::runtime::MemoryAllocator)];
  alignas(16) uint8_t memory_manager_storage_[sizeof(executorch::runtime::MemoryManager)];
  executorch::runtime::Program* program_ = nullptr;
  executorch::runtime::Method* method_ = nullptr;
  executorch::runtime::MemoryAllocator* method_allocator_ = nullptr;
  executorch::runtime::Span<uint8_t> planned_spans_[kMaxPlannedBuffers];
  executorch::aten::TensorImpl* input_tensors_[kMaxInputs] = {};  // nullptr: not a tensor
  size_t num_inputs_ = 0;

  uint64_t (*now_)() = nullptr;
  uint64_t ticks_per_us_ = 0;
  const char* tick_name_ = "ticks";
  uint64_t execute_ticks_ = 0;
};

// "FAILED: <what>: <Error name> (0x<code>)" on stdout; returns the exit code for it (1).
int report_error(const char* what, Error error);

}  // namespace runner
}  // namespace etarm

#endif  // ETARM_RUNTIME_RUNNER_RUNNER_H_
