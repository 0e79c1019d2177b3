// What went wrong while the model ran a command stream: a kind (which becomes the driver's
// ExecuTorch error) and one line naming the command and its byte offset in the stream.
// Nothing the stream contains can make the model fault: every problem ends up here.
#pragma once

#include <cstddef>

namespace etarm {
namespace ethosu {
namespace npu_model {

enum class Fault {
  kNone,
  kMalformedStream,   // a header, command or field the command set does not allow
  kOutOfBounds,       // an access outside the regions (or the NPU's internal memory)
  kBadWeights,        // a weight or scale stream that does not decode to what the operation needs
  kUnsupported,       // valid for the hardware, not modelled yet
  kConfigMismatch,    // the stream was compiled for another NPU configuration
  kOutOfMemory,       // the model's own workspace is too small for an operation
  kHazard,            // a command touches what a command that may still run writes (a wait is missing)
};

class Status {
 public:
  static constexpr size_t kMessageSize = 288;

  Status() = default;

  // A failure of `kind`; the message is printf-style.
  static Status error(Fault kind, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  bool ok() const {
    return fault_ == Fault::kNone;
  }
  Fault fault() const {
    return fault_;
  }
  const char* message() const {
    return message_;
  }

  // Puts "<command> at byte <offset>: " in front of the message (once: a status that
  // already names its command keeps that name).
  Status& at_command(const char* command, size_t offset);

 private:
  Fault fault_ = Fault::kNone;
  bool located_ = false;
  char message_[kMessageSize] = {};
};

// Returns from the calling function when `expr` (a Status) failed.
#define NPU_MODEL_RETURN_IF_ERROR(expr)                          \
  do {                                                           \
    ::etarm::ethosu::npu_model::Status npu_model_status_ = (expr); \
    if (!npu_model_status_.ok()) return npu_model_status_;       \
  } while (0)

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
