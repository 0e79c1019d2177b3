// Ethos-U85's chaining buffers: an elementwise operation can take an IFM straight from the
// operation before it (that operation's OFM storage and this one's IFM or IFM2 storage are
// CHAINED, and the region field names the buffer) instead of through memory. The model runs
// operations one after the other, so it keeps each chained OFM whole: the values after the
// producer's output stage, in the producer's OFM shape, read by the consumer at the same
// (y, x, c) (Vela chains only operations with equal OFM shapes). The buffers hold one chain:
// they are cleared when an operation writes its OFM to memory, which ends the chain.
#pragma once

#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"
#include "runtime/ethosu/npu_model/workspace.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

class ChainBuffers {
 public:
  static constexpr uint32_t kCount = 8;  // what the 3-bit region field can name

  struct Buffer {
    int64_t h, w, c;
    const int32_t* values;  // h x w x c, c fastest; nullptr: nothing stored
  };

  // Keeps a copy of the h x w x c `values` as buffer `index`.
  Status store(uint32_t index, int64_t h, int64_t w, int64_t c, const int32_t* values);
  // Buffer `index`: an error if no operation of the current chain stored it.
  Status get(uint32_t index, const char* reader, const Buffer** out) const;
  void clear();

 private:
  Buffer buffers_[kCount] = {};
  Workspace storage_{nullptr, 0};  // heap blocks, freed by clear()
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
