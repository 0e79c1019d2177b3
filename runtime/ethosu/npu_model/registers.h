// The NPU's register state: what the register-setting commands wrote, kept across
// operations (Vela writes a register only when its value changes).
#pragma once

#include <cstdint>

#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/isa.h"
#include "runtime/ethosu/npu_model/isa_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

class RegisterFile {
 public:
  RegisterFile() {
    reset();
  }
  // Every register back to 0 (the state before a command stream).
  void reset();
  // Records a register-setting command (a short command at or above 0x100, or a long one).
  void write(const Command& command);

  // A short register's 16-bit parameter.
  uint16_t get(Cmd0 reg) const {
    return short_[static_cast<uint16_t>(reg) - kFirstRegisterOpcode];
  }
  // A long register's value: the payload word with the first word's upper 16 bits on top.
  uint64_t get(Cmd1 reg) const {
    return long_[static_cast<uint16_t>(reg) & 0xFF];
  }
  // Addresses and lengths are 40 bits wide.
  uint64_t address(Cmd1 reg) const {
    return get(reg) & ((uint64_t{1} << 40) - 1);
  }
  // Strides are 40-bit two's complement (a reversed OFM axis has a negative stride).
  int64_t stride(Cmd1 reg) const {
    return signed40(address(reg));
  }

  // The same by U85 opcode (isa_u85.h): both command sets index one register file.
  uint16_t get(u85::Cmd0 reg) const {
    return short_[static_cast<uint16_t>(reg) - kFirstRegisterOpcode];
  }
  uint64_t get(u85::Cmd1 reg) const {
    return long_[static_cast<uint16_t>(reg) & 0xFF];
  }
  uint64_t address(u85::Cmd1 reg) const {
    return get(reg) & ((uint64_t{1} << 40) - 1);
  }
  int64_t stride(u85::Cmd1 reg) const {
    return signed40(address(reg));
  }
  uint32_t get(u85::Cmd0 reg, u85::Field f) const {
    return u85::param_field(get(reg), f);
  }
  uint32_t get(u85::Cmd1 reg, u85::Field f) const {
    return u85::value_field(get(reg), f);
  }

 private:
  static int64_t signed40(uint64_t v) {
    return (v & (uint64_t{1} << 39)) != 0 ? static_cast<int64_t>(v) - (int64_t{1} << 40) : static_cast<int64_t>(v);
  }

  uint16_t short_[kNumOpcodes - kFirstRegisterOpcode];
  uint64_t long_[0x100];
};

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
