#include "runtime/ethosu/npu_model/hazards.h"

#include <cinttypes>
#include <cstdio>

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// What an overlap's message calls the memory: "region 1" or "internal memory".
struct SpaceName {
  char text[24];
  explicit SpaceName(uint32_t space) {
    if (space == kInternalSpace) {
      std::snprintf(text, sizeof(text), "internal memory");
    } else {
      std::snprintf(text, sizeof(text), "region %" PRIu32, space);
    }
  }
};

// The first pair of conflicting spans (overlapping, at least one a write), or false.
bool find_conflict(const Footprint& mine, const Footprint& theirs, const AccessRange** a, const AccessRange** b) {
  for (size_t i = 0; i < mine.size(); ++i) {
    for (size_t j = 0; j < theirs.size(); ++j) {
      if ((mine[i].write || theirs[j].write) && mine[i].overlaps(theirs[j])) {
        *a = &mine[i];
        *b = &theirs[j];
        return true;
      }
    }
  }
  return false;
}

Status overlap_error(const AccessRange& mine, const char* other, size_t other_offset, const AccessRange& theirs,
                     const char* missing) {
  const SpaceName space(mine.space);
  return Status::error(Fault::kHazard,
                       "%s %s [%" PRIu64 ", %" PRIu64 ") of %s overlaps the %s %s [%" PRIu64 ", %" PRIu64
                       ") of %s at byte %zu, which may still run (no %s between them)",
                       mine.what, mine.write ? "write" : "read", mine.lo, mine.hi, space.text, theirs.what,
                       theirs.write ? "write" : "read", theirs.lo, theirs.hi, other, other_offset, missing);
}

// The error for the first command of `queue` (DMAs or kernels that may still run) whose
// accesses conflict with `mine`, naming the wait that was `missing`; OK when none does.
template <typename Queue>
Status first_conflict(const Queue& queue, const Footprint& mine, const char* missing) {
  const AccessRange* a = nullptr;
  const AccessRange* b = nullptr;
  for (size_t k = 0; k < queue.count; ++k) {
    if (find_conflict(mine, queue.items[k].footprint, &a, &b)) {
      return overlap_error(*a, queue.items[k].command, queue.items[k].offset, *b, missing);
    }
  }
  return Status();
}

bool reads_internal(const Footprint& f) {
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i].space == kInternalSpace && !f[i].write && !f[i].empty()) return true;
  }
  return false;
}

}  // namespace

void HazardChecker::reset(const Accelerator& accelerator) {
  dmas_.count = 0;
  kernels_.count = 0;
  const Product product = accelerator.product;
  dmas_.limit = product == Product::kEthosU85 ? kMaxDmas : product == Product::kEthosU65 ? 2 : 1;
  kernels_.limit = kMaxKernels;
  clobber_shram_ = accelerator.product != Product::kEthosU85 && accelerator.shram_banks <= 16;
  shram_banks_ = accelerator.shram_banks;
}

Status HazardChecker::dma_started(const char* command, size_t offset, const Footprint& footprint) {
  NPU_MODEL_RETURN_IF_ERROR(first_conflict(kernels_, footprint, "NPU_OP_KERNEL_WAIT"));
  NPU_MODEL_RETURN_IF_ERROR(first_conflict(dmas_, footprint, "NPU_OP_DMA_WAIT"));
  dmas_.push(command, offset, footprint);
  return Status();
}

Status HazardChecker::kernel_started(const char* command, size_t offset, const Footprint& footprint,
                                     uint32_t blockdep, bool ofm_reordered, bool joins_chain) {
  Footprint mine = footprint;
  const bool uses_lut = reads_internal(mine);
  if (clobber_shram_) {
    // The accumulators fill the SHRAM, look-up table area included (Vela: "LUT is
    // overwritten by accumulator buffer"). The size is this configuration's SHRAM.
    mine.span("SHRAM (accumulators)", kInternalSpace, true)->add(0, uint64_t{1024} * shram_banks_);
  }
  NPU_MODEL_RETURN_IF_ERROR(first_conflict(dmas_, mine, "NPU_OP_DMA_WAIT"));
  if (joins_chain && kernels_.count > 0) {
    Activity& group = kernels_.items[kernels_.count - 1];
    for (size_t i = 0; i < mine.size(); ++i) group.footprint.append(mine[i]);
    group.ofm_reordered = ofm_reordered;
    return Status();
  }
  if (blockdep > 0 && kernels_.count > 0) {
    const Activity& previous = kernels_.items[kernels_.count - 1];
    const Footprint& theirs = previous.footprint;
    for (size_t i = 0; i < mine.size(); ++i) {
      const AccessRange& read = mine[i];
      if (read.write || read.space == kInternalSpace) continue;
      for (size_t j = 0; j < theirs.size(); ++j) {
        const AccessRange& written = theirs[j];
        // Vela lets a kernel start early on the previous OFM read as that same tensor, and
        // (seen in deit_tiny and conformer_block on U85, BLOCKDEP 7) on a view of it from its
        // first byte (a reshape); whether the block dependency covers such a view is not in
        // public facts, so it is let through. Any other overlap (a view from another byte, a
        // reordered OFM) is a hazard.
        const bool same_tensor = read.addressing == written.addressing && read.addressing.elem_bytes != 0;
        const bool same_start_view = read.lo == written.lo && read.hi <= written.hi;
        if (written.write && read.overlaps(written) && (!(same_tensor || same_start_view) || previous.ofm_reordered)) {
          const SpaceName space(read.space);
          return Status::error(Fault::kHazard,
                               "BLOCKDEP %" PRIu32 " lets this kernel start before %s at byte %zu ends, but its %s"
                               " read [%" PRIu64 ", %" PRIu64 ") of %s overlaps that kernel's %s write [%" PRIu64
                               ", %" PRIu64 ")%s",
                               blockdep, previous.command, previous.offset, read.what, read.lo, read.hi, space.text,
                               written.what, written.lo, written.hi,
                               previous.ofm_reordered ? ", stored reordered" : " as another tensor");
        }
      }
    }
    if (clobber_shram_ && !uses_lut && reads_internal(theirs)) {
      return Status::error(Fault::kHazard,
                           "BLOCKDEP %" PRIu32 " lets this kernel, which uses no look-up table, start before %s at byte"
                           " %zu ends, but its accumulators overwrite the table that kernel reads",
                           blockdep, previous.command, previous.offset);
    }
  }
  kernels_.push(command, offset, mine);
  kernels_.items[kernels_.count - 1].ofm_reordered = ofm_reordered;
  return Status();
}

void HazardChecker::dma_wait(uint32_t outstanding) {
  dmas_.retire_all_but(outstanding);
}

void HazardChecker::kernel_wait(uint32_t outstanding) {
  kernels_.retire_all_but(outstanding);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
