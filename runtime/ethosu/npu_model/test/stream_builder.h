// Hand-made command streams for the NPU model's tests: the COP1 driver header around
// command words built from the register definitions.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/ethosu/npu_model/accelerator.h"
#include "runtime/ethosu/npu_model/isa.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {

class StreamBuilder {
 public:
  explicit StreamBuilder(const char* accelerator = "ethos-u55-128") : accelerator_(find_accelerator(accelerator)) {}

  StreamBuilder& cmd0(Cmd0 opcode, uint16_t param = 0) {
    words_.push_back(static_cast<uint32_t>(opcode) | (uint32_t{param} << 16));
    return *this;
  }
  StreamBuilder& cmd1(Cmd1 opcode, uint64_t value) {
    words_.push_back(static_cast<uint32_t>(opcode) | (kFormLong << kFormShift) |
                     (static_cast<uint32_t>((value >> 32) & 0xFFFF) << 16));
    words_.push_back(static_cast<uint32_t>(value));
    return *this;
  }
  StreamBuilder& word(uint32_t w) {
    words_.push_back(w);
    return *this;
  }

  // Byte offset (in the finished payload) of the next command word.
  size_t next_offset() const {
    return kHeaderBytes + 4 * words_.size();
  }

  // The driver payload: "COP1", the config action, NOP padding, the command-stream action.
  std::vector<uint8_t> finish() const {
    std::vector<uint32_t> all = {0x31504F43u, 0x00100001u, accelerator_ != nullptr ? accelerator_->config_word() : 0,
                                 0x10000000u, 0x00000005u, 0x00000005u, 0x00000005u};
    const uint32_t n = static_cast<uint32_t>(words_.size());
    all.push_back(0x02u | ((n >> 16) & 0xFF) << 8 | (n & 0xFFFF) << 16);
    all.insert(all.end(), words_.begin(), words_.end());
    std::vector<uint8_t> bytes;
    for (uint32_t w : all) {
      for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<uint8_t>(w >> (8 * b)));
    }
    return bytes;
  }

  static constexpr size_t kHeaderBytes = 32;

 private:
  const Accelerator* accelerator_;
  std::vector<uint32_t> words_;
};

// Registers of a signed 8-bit NHWC feature map of h x w x c at `base` of `region`.
inline void ifm_registers(StreamBuilder& s, uint32_t region, uint64_t base, int h, int w, int c) {
  s.cmd0(Cmd0::kIfmRegion, static_cast<uint16_t>(region))
      .cmd1(Cmd1::kIfmBase0, base)
      .cmd0(Cmd0::kIfmHeight0M1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kIfmHeight1M1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kIfmWidth0M1, static_cast<uint16_t>(w - 1))
      .cmd0(Cmd0::kIfmDepthM1, static_cast<uint16_t>(c - 1))
      .cmd1(Cmd1::kIfmStrideY, static_cast<uint64_t>(w * c))
      .cmd1(Cmd1::kIfmStrideX, static_cast<uint64_t>(c))
      .cmd1(Cmd1::kIfmStrideC, 1)
      .cmd0(Cmd0::kIfmPrecision, 1);  // signed, 8-bit, NHWC
}

inline void ifm2_registers(StreamBuilder& s, uint32_t region, uint64_t base, int h, int w, int c) {
  s.cmd0(Cmd0::kIfm2Region, static_cast<uint16_t>(region))
      .cmd1(Cmd1::kIfm2Base0, base)
      .cmd0(Cmd0::kIfm2Height0M1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kIfm2Height1M1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kIfm2Width0M1, static_cast<uint16_t>(w - 1))
      .cmd1(Cmd1::kIfm2StrideY, static_cast<uint64_t>(w * c))
      .cmd1(Cmd1::kIfm2StrideX, static_cast<uint64_t>(c))
      .cmd1(Cmd1::kIfm2StrideC, 1)
      .cmd0(Cmd0::kIfm2Precision, 1);
}

inline void ofm_registers(StreamBuilder& s, uint32_t region, uint64_t base, int h, int w, int c) {
  s.cmd0(Cmd0::kOfmRegion, static_cast<uint16_t>(region))
      .cmd1(Cmd1::kOfmBase0, base)
      .cmd0(Cmd0::kOfmHeightM1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kOfmWidthM1, static_cast<uint16_t>(w - 1))
      .cmd0(Cmd0::kOfmDepthM1, static_cast<uint16_t>(c - 1))
      .cmd0(Cmd0::kOfmHeight0M1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kOfmHeight1M1, static_cast<uint16_t>(h - 1))
      .cmd0(Cmd0::kOfmWidth0M1, static_cast<uint16_t>(w - 1))
      .cmd1(Cmd1::kOfmStrideY, static_cast<uint64_t>(w * c))
      .cmd1(Cmd1::kOfmStrideX, static_cast<uint64_t>(c))
      .cmd1(Cmd1::kOfmStrideC, 1)
      .cmd0(Cmd0::kOfmPrecision, 1 | (1 << 8))  // signed, 8-bit, NHWC, global scale
      .cmd1(Cmd1::kOfmScale, 1)                 // scale 1, shift 0
      .cmd0(Cmd0::kActivationMin, 0xFF80)
      .cmd0(Cmd0::kActivationMax, 0x007F);
}

// An elementwise ADD of two 2x2x4 int8 feature maps in region 1 (at 0 and 16) into 32; the
// operation command's byte offset in *op_offset.
inline StreamBuilder add_stream(size_t* op_offset = nullptr) {
  StreamBuilder s;
  ifm_registers(s, 1, 0, 2, 2, 4);
  ifm2_registers(s, 1, 16, 2, 2, 4);
  ofm_registers(s, 1, 32, 2, 2, 4);
  s.cmd1(Cmd1::kOpaScale, 1).cmd1(Cmd1::kOpbScale, 1);
  if (op_offset != nullptr) *op_offset = s.next_offset();
  s.cmd0(Cmd0::kElementwise, static_cast<uint16_t>(ElementwiseMode::kAdd));
  return s;
}

}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
