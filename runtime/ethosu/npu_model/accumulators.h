// Ethos-U85's accumulators across operations: ACC_FORMAT's input mode can start an operation
// from the accumulators the previous operation left (KEEP: Vela splits a long reduction, or a
// pool with a stride above 3, into operations that add to, or take the MAX of, the same
// accumulators) or from IFM2's values (IFM2: how Vela copies and rescales 32-bit tensors and
// reads back int48 accumulators written to a 64-bit OFM, a POOL NONE whose IFM is unused), and
// its output mode can leave the OFM unwritten (DISABLE) for a following KEEP. The model keeps
// the last pooling's or convolution's accumulators (before the bias: the output stage adds it
// where an OFM is written), one per OFM element (h x w x c, c fastest); an elementwise
// operation, matmul, resize or a convolution that writes its OFM drops them (drop_written).
#pragma once

#include <cstdint>

#include "runtime/ethosu/npu_model/status.h"
#include "runtime/ethosu/npu_model/workspace.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

class Accumulators {
 public:
  // Keeps a copy of the h x w x c `values`.
  Status store(int64_t h, int64_t w, int64_t c, const int64_t* values);
  // The kept accumulators for an h x w x c operation: an error if none were kept or they were
  // another shape.
  Status get(int64_t h, int64_t w, int64_t c, const int64_t** out) const;
  void clear();
  // Drops the accumulators of an operation that wrote its OFM without copying them (an
  // elementwise operation's, matmul's or resize's are not modelled as kept; a convolution's can
  // be as large as its OFM, and Vela's chains continue only from operations with output
  // DISABLE): a following KEEP fails as not modelled.
  void drop_written();

 private:
  bool dropped_ = false;  // the last operation's accumulators were not kept (drop_written)
  int64_t h_ = 0, w_ = 0, c_ = 0;
  const int64_t* values_ = nullptr;
  Workspace storage_{nullptr, 0};  // heap blocks: the kept values and the one being replaced
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
