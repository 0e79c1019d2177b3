#include "runtime/ethosu/npu_model/registers.h"

#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {

void RegisterFile::reset() {
  std::memset(short_, 0, sizeof(short_));
  std::memset(long_, 0, sizeof(long_));
}

void RegisterFile::write(const Command& command) {
  if (command.is_long) {
    long_[command.opcode & 0xFF] = command.value();
  } else if (command.opcode >= kFirstRegisterOpcode) {
    short_[command.opcode - kFirstRegisterOpcode] = command.param;
  }
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
