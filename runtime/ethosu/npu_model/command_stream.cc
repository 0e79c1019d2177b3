#include "runtime/ethosu/npu_model/command_stream.h"

#include "runtime/ethosu/npu_model/isa.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

constexpr uint32_t kFourccCop1 = 0x31504F43;  // "COP1" as a little-endian word
constexpr uint32_t kFourccCop2 = 0x32504F43;  // "COP2"
constexpr uint32_t kFourccVeum = 0x4D554556;  // "VEUM": a COP2 command stream's metadata
constexpr uint32_t kCop2EntryCommandStream = 1;
constexpr size_t kVeumDataBytes = 20;  // CONFIG, ID, addressing, u64 staging bytes

// Driver action kinds (the low byte of an action word).
constexpr uint32_t kActionOptimizerConfig = 0x01;  // two words follow: CONFIG, ID
constexpr uint32_t kActionCommandStream = 0x02;    // 24-bit word count, the words follow
constexpr uint32_t kActionReadApb = 0x03;          // register reads for the driver: nothing to run
constexpr uint32_t kActionDumpShram = 0x04;        // a debug dump: nothing to run
constexpr uint32_t kActionNop = 0x05;

// The COP2 form: header, then exactly one command-stream entry.
Status parse_cop2(const uint8_t* data, size_t size, DriverPayload* out) {
  if (size < 16) {
    return Status::error(Fault::kMalformedStream, "COP2 driver payload of %zu bytes is shorter than its header", size);
  }
  const uint32_t version = read_u32(data + 4);
  if ((version & 0xFFFF) != 1) {
    return Status::error(Fault::kMalformedStream, "COP2 version %u.%u (this model reads 1.x)",
                         static_cast<unsigned>(version & 0xFFFF), static_cast<unsigned>(version >> 16));
  }
  const uint64_t length = read_u32(data + 8) | (uint64_t{read_u32(data + 12)} << 32);
  if (length != size - 16) {
    return Status::error(Fault::kMalformedStream, "COP2 header declares %llu bytes of entries; %zu follow it",
                         static_cast<unsigned long long>(length), size - 16);
  }
  bool have_stream = false;
  size_t pos = 16;
  while (pos < size) {
    if (size - pos < 8) {
      return Status::error(Fault::kMalformedStream, "COP2 entry header at byte %zu is cut off", pos);
    }
    const uint32_t type = read_u32(data + pos);
    const size_t entry_bytes = read_u32(data + pos + 4);
    const size_t begin = pos + 8;
    if (entry_bytes > size - begin) {
      return Status::error(Fault::kMalformedStream, "COP2 entry at byte %zu declares %zu bytes; %zu remain", pos,
                           entry_bytes, size - begin);
    }
    if (type != kCop2EntryCommandStream) {
      return Status::error(Fault::kMalformedStream, "unknown COP2 entry type %u at byte %zu",
                           static_cast<unsigned>(type), pos);
    }
    if (have_stream) {
      return Status::error(Fault::kMalformedStream, "a second command stream at byte %zu", pos);
    }
    // Metadata: its length, then "VEUM", version, data length and the data.
    if (entry_bytes < 4) {
      return Status::error(Fault::kMalformedStream, "COP2 command stream at byte %zu has no metadata length", pos);
    }
    const size_t meta_bytes = read_u32(data + begin);
    if (meta_bytes > entry_bytes - 4 || meta_bytes < 12 + kVeumDataBytes) {
      return Status::error(Fault::kMalformedStream, "COP2 command stream at byte %zu: metadata of %zu bytes in %zu",
                           pos, meta_bytes, entry_bytes);
    }
    const uint8_t* meta = data + begin + 4;
    const size_t meta_data_bytes = read_u32(meta + 8);
    if (read_u32(meta) != kFourccVeum || (read_u32(meta + 4) & 0xFFFF) != 1 || meta_data_bytes < kVeumDataBytes ||
        meta_data_bytes > meta_bytes - 12) {
      return Status::error(Fault::kMalformedStream,
                           "COP2 command stream at byte %zu: metadata is not VEUM 1.x with %zu data bytes", pos,
                           kVeumDataBytes);
    }
    out->has_config = true;
    out->config = read_u32(meta + 12);
    out->id = read_u32(meta + 16);
    out->addressing = read_u32(meta + 20);
    if (out->addressing != 1 && out->addressing != 2) {
      return Status::error(Fault::kMalformedStream, "COP2 command stream at byte %zu: addressing mode %u (1 or 2)",
                           pos, static_cast<unsigned>(out->addressing));
    }
    out->commands_begin = begin + 4 + meta_bytes;
    out->commands_end = begin + entry_bytes;
    if ((out->commands_end - out->commands_begin) % 4 != 0) {
      return Status::error(Fault::kMalformedStream, "COP2 command stream at byte %zu: %zu bytes, not whole words",
                           pos, out->commands_end - out->commands_begin);
    }
    have_stream = true;
    pos = out->commands_end;
  }
  if (!have_stream) {
    return Status::error(Fault::kMalformedStream, "COP2 driver payload of %zu bytes holds no command stream", size);
  }
  return Status();
}

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
  if (read_u32(data) == kFourccCop2) {
    out->format = 2;
    return parse_cop2(data, size, out);
  }
  if (read_u32(data) != kFourccCop1) {
    return Status::error(Fault::kMalformedStream,
                         "driver payload does not start with \"COP1\" or \"COP2\" (word 0x%08x)",
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
