// The hazard checker: what the hardware may run at the same time, and whether the stream
// waits where that matters. The model itself runs every command to completion in order, so
// a missing wait never changes its results; on the NPU it would. The checker follows the
// stream beside execution (results never change) and fails the run when a command touches
// bytes another command that may still be running writes (or writes bytes it reads).
//
// The concurrency, as Vela 5.2.0's command-stream generators describe the hardware
// (ethosu55/ethos_u55_register_cs_generator.cpp, ethosu85/ethos_u85_register_cs_generator.cpp,
// the ArchEthosU55/U65/U85 limits):
// - NPU_OP_DMA_START queues a DMA that runs beside the kernels. At most 1 (U55), 2 (U65) or
//   4 (U85) earlier DMAs may still run when one is issued; older ones have finished.
// - A kernel (CONV, DEPTHWISE, POOL, ELEMENTWISE, RESIZE) likewise runs beside the command
//   processor: at most 2 earlier kernels may still run. On U85 a group of kernels chained
//   through the chaining buffers counts as one.
// - NPU_OP_DMA_WAIT k waits until at most the k newest DMAs still run; NPU_OP_KERNEL_WAIT n
//   until at most the n newest kernels do. Vela's access model: a conflict is two accesses
//   to overlapping bytes of one memory (region, or the internal SHRAM / LUT RAM), at least
//   one a write. A kernel reads IFM, IFM2, weights, scales and its look-up table and writes
//   its OFM; on configurations without reserved LUT banks (16 SHRAM banks or fewer: U55-32,
//   -64) it also overwrites the whole SHRAM with its accumulators. A DMA reads its source
//   (and index table) and writes its destination.
// - NPU_SET_BLOCKDEP b lets the next kernel start while the previous one still has its last
//   b blocks to compute (b <= 3 on U55/U65, <= 7 on U85). Vela sets b > 0 for a kernel
//   whose IFM/IFM2 overlaps the previous OFM only when that IFM is the previous OFM itself
//   (same address, same shape) and the first b blocks of one cannot touch the last b of the
//   other; a partial overlap, or one at another address, gets 0. Without reserved LUT banks
//   it also gets 0 when the previous kernel used a look-up table and this one does not.
//
// What is checked (every access as the model makes it: the byte range [lowest, highest)
// each kind of access of a command touched, per region):
// (a) a kernel touching bytes an unretired DMA writes (or writing bytes it reads);
// (b) a DMA touching bytes an unretired kernel writes (or writing bytes it reads);
// (d) a DMA touching bytes an unretired earlier DMA writes (or writing bytes it reads);
// (c) with BLOCKDEP > 0, a kernel reading bytes the previous, unretired kernel writes whose
//     range does not start where the previous kernel's write does (not the same feature
//     map), and on configurations without reserved LUT banks a kernel without a look-up
//     table following one with a table.
// Not checked: whether the first b blocks of a kernel reading the previous OFM in place
// avoid that OFM's last b blocks (that needs the block traversal), a kernel writing what the
// previous kernel reads, and kernels two apart. Retiring follows the limits above, so a
// stream relying on a queue limit is not flagged.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/accelerator.h"
#include "runtime/ethosu/npu_model/memory.h"
#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

class HazardChecker {
 public:
  // Forgets everything: the state at the start of a stream.
  void reset(const Accelerator& accelerator);

  // A command started. `footprint` holds what it touched; `blockdep` is NPU_SET_BLOCKDEP
  // for kernels. An error names both commands and the overlapping bytes.
  Status dma_started(const char* command, size_t offset, const Footprint& footprint);
  // `ofm_reordered`: the OFM is stored transposed or reversed (U85). `joins_chain`: the
  // previous kernel's OFM is chained into this one (U85): Vela's waits count such an operation
  // group as one kernel, so it joins the previous kernel's entry (errors name the group's
  // first kernel).
  Status kernel_started(const char* command, size_t offset, const Footprint& footprint, uint32_t blockdep,
                        bool ofm_reordered, bool joins_chain);

  // NPU_OP_DMA_WAIT / NPU_OP_KERNEL_WAIT with their parameter: how many may still run.
  void dma_wait(uint32_t outstanding);
  void kernel_wait(uint32_t outstanding);

 private:
  static constexpr size_t kMaxDmas = 4;
  static constexpr size_t kMaxKernels = 2;

  // A command that may still be running: its name, stream offset and accesses.
  struct Activity {
    const char* command;
    size_t offset;
    Footprint footprint;
    bool ofm_reordered;
  };
  // Newest last; at most `limit` (<= N) are kept: issuing past it retires the oldest.
  template <size_t N>
  struct Queue {
    Activity items[N];
    size_t count = 0;
    size_t limit = 0;
    void push(const char* command, size_t offset, const Footprint& footprint) {
      if (limit == 0) return;
      if (count == limit) retire_all_but(limit - 1);
      items[count++] = Activity{command, offset, footprint, false};
    }
    void retire_all_but(size_t newest) {
      if (count <= newest) return;
      const size_t drop = count - newest;
      for (size_t i = 0; i < newest; ++i) items[i] = items[i + drop];
      count = newest;
    }
  };

  Queue<kMaxDmas> dmas_;
  Queue<kMaxKernels> kernels_;
  bool clobber_shram_ = false;  // kernels overwrite the whole SHRAM (no reserved LUT banks)
  uint32_t shram_banks_ = 0;
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
