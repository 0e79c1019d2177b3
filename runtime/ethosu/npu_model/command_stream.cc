#include "runtime/ethosu/npu_model/command_stream.h"

#include "runtime/ethosu/npu_model/isa.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr uint32_t kFourccCop1 = 0x31504F43;  // "COP1" as a little-endian word

// Driver action kinds (the low byte of an action word).
constexpr uint32_t kActionOptimizerConfig = 0x01;  // two words follow: CONFIG, ID
constexpr uint32_t kActionCommandStream = 0x02;    // 24-bit word count, the words follow
constexpr uint32_t kActionReadApb = 0x03;          // register reads for the driver: nothing to run
constexpr uint32_t kActionDumpShram = 0x04;        // a debug dump: nothing to run
constexpr uint32_t kActionNop = 0x05;

}  // namespace

uint32_t read_u32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}

const char* Command::name() const {
  const char* n = command_name(set, is_long, opcode);
  return n != nullptr ? n : "unknown command";
}

Status CommandReader::next(Command* command) {
  if (pos_ + 4 > end_) {
    return Status::error(Fault::kMalformedStream, "command stream ends inside a command word at byte %zu", pos_);
  }
  const uint32_t word = read_u32(data_ + pos_);
  Command c{};
  c.set = set_;
  c.offset = pos_;
  c.opcode = static_cast<uint16_t>(word & kOpcodeMask);
  c.param = static_cast<uint16_t>(word >> 16);
  const uint32_t form = field(word, kFormShift, 2);
  if (form != kFormShort && form != kFormLong) {
    return Status::error(Fault::kMalformedStream, "word 0x%08x at byte %zu has the reserved command form %u",
                         static_cast<unsigned>(word), pos_, static_cast<unsigned>(form));
  }
  if (field(word, 10, 4) != 0) {
    return Status::error(Fault::kMalformedStream, "word 0x%08x at byte %zu sets reserved bits 10..13",
                         static_cast<unsigned>(word), pos_);
  }
  c.is_long = form == kFormLong;
  if (command_name(set_, c.is_long, c.opcode) == nullptr) {
    return Status::error(Fault::kMalformedStream, "unknown %s opcode 0x%03x at byte %zu", c.is_long ? "cmd1" : "cmd0",
                         c.opcode, pos_);
  }
  if (c.is_long) {
    if (pos_ + 8 > end_) {
      return Status::error(Fault::kMalformedStream, "%s at byte %zu: the stream ends before its payload word",
                           c.name(), pos_);
    }
    c.payload = read_u32(data_ + pos_ + 4);
    pos_ += 8;
  } else {
    pos_ += 4;
  }
  *command = c;
  return Status();
}

Status parse_driver_payload(const uint8_t* data, size_t size, DriverPayload* out) {
  *out = DriverPayload();
  if (size < 4 || size % 4 != 0) {
    return Status::error(Fault::kMalformedStream, "driver payload of %zu bytes: not whole 32-bit words", size);
  }
  if (read_u32(data) != kFourccCop1) {
    return Status::error(Fault::kMalformedStream, "driver payload does not start with \"COP1\" (word 0x%08x)",
                         static_cast<unsigned>(read_u32(data)));
  }
  bool have_stream = false;
  size_t pos = 4;
  while (pos < size) {
    const uint32_t action = read_u32(data + pos);
    const uint32_t kind = action & 0xFF;
    switch (kind) {
      case kActionOptimizerConfig:
        if (pos + 12 > size) {
          return Status::error(Fault::kMalformedStream, "config action at byte %zu is cut off", pos);
        }
        out->has_config = true;
        out->config = read_u32(data + pos + 4);
        out->id = read_u32(data + pos + 8);
        pos += 12;
        break;
      case kActionCommandStream: {
        if (have_stream) {
          return Status::error(Fault::kMalformedStream, "a second command stream at byte %zu", pos);
        }
        const size_t words = (size_t{field(action, 8, 8)} << 16) | field(action, 16, 16);
        if (words > (size - pos - 4) / 4) {
          return Status::error(Fault::kMalformedStream,
                               "command stream at byte %zu declares %zu words; %zu bytes remain", pos, words,
                               size - pos - 4);
        }
        out->commands_begin = pos + 4;
        out->commands_end = pos + 4 + 4 * words;
        pos = out->commands_end;
        have_stream = true;
        break;
      }
      case kActionReadApb:
      case kActionDumpShram:
      case kActionNop:
        pos += 4;
        break;
      default:
        return Status::error(Fault::kMalformedStream, "unknown driver action 0x%08x at byte %zu",
                             static_cast<unsigned>(action), pos);
    }
  }
  if (!have_stream) {
    return Status::error(Fault::kMalformedStream, "driver payload of %zu bytes holds no command stream", size);
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
