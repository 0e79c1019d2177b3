// Reading Vela's command stream: the COP1 or COP2 driver payload around it, then its commands.
//
// COP1 (Vela's default; what the EthosUBackend payload's cmd_data block holds) is a list of
// 32-bit little-endian driver actions: the "COP1" fourcc; an optimizer-config tag followed by
// the NPU's CONFIG and ID register values the stream was compiled for; NOP tags padding the
// commands to 16 bytes; a command-stream tag whose 24-bit count (8 bits above the 16-bit
// parameter) gives the command words that follow. Each action's low byte is its kind.
//
// COP2 (Vela's --cop-format=COP2, which --separate-io-regions needs: Ethos-U85 direct drive)
// is a 16-byte header ("COP2", u16 major 1, u16 minor, u64 length of the entries after it)
// and entries of u32 type, u32 data length. Type 1, the command stream: u32 metadata length
// M, M bytes of metadata ("VEUM", u16 major 1, u16 minor, u32 data length >= 20, then CONFIG,
// ID, u32 addressing (1 network-wide: I/O in the arena; 2 local: inputs and outputs in their
// own regions), u64 fast-scratch (staging) bytes, padding), then the command words.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/ethosu/npu_model/isa.h"
#include "runtime/ethosu/npu_model/status.h"

namespace etarm {
namespace ethosu {
namespace npu_model {

// One command word (or pair of words) of the stream.
struct Command {
  CommandSet set;    // the command set it was read with
  size_t offset;     // byte offset of its first word in the driver payload
  bool is_long;      // cmd1: a payload word follows
  uint16_t opcode;   // bits 0..9
  uint16_t param;    // bits 16..31 of the first word
  uint32_t payload;  // the second word of a long command

  // NPU_SET_..., NPU_OP_... (the command set's names; every command read is known).
  const char* name() const;
  // A long command's value: the payload with the first word's upper bits on top.
  uint64_t value() const {
    return (uint64_t{param} << 32) | payload;
  }
};

// Reads the commands of one command-stream action: words [begin, end) of `data`.
class CommandReader {
 public:
  CommandReader(const uint8_t* data, size_t begin, size_t end, CommandSet set = CommandSet::kEthosU55)
      : data_(data), pos_(begin), end_(end), set_(set) {}

  bool done() const {
    return pos_ >= end_;
  }
  // The next command; an error for a word that is no command (reserved form bits, an
  // opcode the command set does not define, a long command cut off by the end).
  Status next(Command* command);

 private:
  const uint8_t* data_;
  size_t pos_;
  size_t end_;
  CommandSet set_;
};

// What the driver payload's header says.
struct DriverPayload {
  uint32_t format = 1;  // 1: COP1, 2: COP2
  // COP2 only: 2 when inputs and outputs have their own regions (Vela --separate-io-regions).
  uint32_t addressing = 0;
  bool has_config = false;
  uint32_t config = 0;  // the CONFIG register value of the NPU the stream was compiled for
  uint32_t id = 0;      // the ID register value (architecture version)
  size_t commands_begin = 0;  // byte offsets of the command words
  size_t commands_end = 0;
};

// Walks the driver payload `data[0, size)` (COP1 or COP2): exactly one command stream; in
// COP1 preceded by the fourcc and any config/NOP actions, with nothing but NOPs after it.
// Every error names the byte offset.
Status parse_driver_payload(const uint8_t* data, size_t size, DriverPayload* out);

uint32_t read_u32(const uint8_t* p);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
