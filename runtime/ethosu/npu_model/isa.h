// The Ethos-U55/U65 command set as the NPU model reads it: the opcodes of the two command
// forms and the bit fields of the registers they set.
//
// A command stream is a sequence of 32-bit little-endian words. Bits 0..9 of the first word
// are the opcode, bits 14..15 the form: 0 is a short command (cmd0) whose 16-bit parameter
// sits in bits 16..31; 1 is a long command (cmd1) followed by a 32-bit payload word, its
// bits 16..31 carrying the payload's upper bits (addresses are 40 bits: 8 there, 32 in the
// payload). Opcodes below 0x100 of the short form are operations (run, wait, stop); the
// others set registers, which keep their value until set again: Vela only writes a register
// when its value changes, so the model keeps the state across operations.
//
// Values and layouts are the facts of Vela 5.2.0's register definitions
// (ethosu/regor/architecture/ethosu65/ethos_u65_interface.hpp, shared by U55 and U65).
#pragma once

#include <cstdint>

namespace etarm {
namespace ethosu {
namespace npu_model {

// Short commands (cmd0): operations below 0x100, register writes from 0x100.
enum class Cmd0 : uint16_t {
  kStop = 0,
  kIrq = 1,
  kConv = 2,
  kDepthwise = 3,
  kPool = 5,
  kElementwise = 6,
  kDmaStart = 16,
  kDmaWait = 17,
  kKernelWait = 18,
  kPmuMask = 19,
  kIfmPadTop = 256,
  kIfmPadLeft = 257,
  kIfmPadRight = 258,
  kIfmPadBottom = 259,
  kIfmDepthM1 = 260,
  kIfmPrecision = 261,
  kIfmUpscale = 263,
  kIfmZeroPoint = 265,
  kIfmWidth0M1 = 266,
  kIfmHeight0M1 = 267,
  kIfmHeight1M1 = 268,
  kIfmIbEnd = 269,
  kIfmRegion = 271,
  kOfmWidthM1 = 273,
  kOfmHeightM1 = 274,
  kOfmDepthM1 = 275,
  kOfmPrecision = 276,
  kOfmBlkWidthM1 = 277,
  kOfmBlkHeightM1 = 278,
  kOfmBlkDepthM1 = 279,
  kOfmZeroPoint = 280,
  kOfmWidth0M1 = 282,
  kOfmHeight0M1 = 283,
  kOfmHeight1M1 = 284,
  kOfmRegion = 287,
  kKernelWidthM1 = 288,
  kKernelHeightM1 = 289,
  kKernelStride = 290,
  kParallelMode = 291,
  kAccFormat = 292,
  kActivation = 293,
  kActivationMin = 294,
  kActivationMax = 295,
  kWeightRegion = 296,
  kScaleRegion = 297,
  kAbStart = 301,
  kBlockDep = 303,
  kDma0SrcRegion = 304,
  kDma0DstRegion = 305,
  kDma0Size0 = 306,
  kDma0Size1 = 307,
  kIfm2Broadcast = 384,
  kIfm2Scalar = 385,
  kIfm2Precision = 389,
  kIfm2ZeroPoint = 393,
  kIfm2Width0M1 = 394,
  kIfm2Height0M1 = 395,
  kIfm2Height1M1 = 396,
  kIfm2IbStart = 397,
  kIfm2Region = 399,
};

// Long commands (cmd1): all set registers (40-bit addresses and strides, lengths, scales).
enum class Cmd1 : uint16_t {
  kIfmBase0 = 0,
  kIfmBase1 = 1,
  kIfmBase2 = 2,
  kIfmBase3 = 3,
  kIfmStrideX = 4,
  kIfmStrideY = 5,
  kIfmStrideC = 6,
  kOfmBase0 = 16,
  kOfmBase1 = 17,
  kOfmBase2 = 18,
  kOfmBase3 = 19,
  kOfmStrideX = 20,
  kOfmStrideY = 21,
  kOfmStrideC = 22,
  kWeightBase = 32,
  kWeightLength = 33,
  kScaleBase = 34,
  kScaleLength = 35,
  kOfmScale = 36,
  kOpaScale = 37,
  kOpbScale = 38,
  kDma0Src = 48,
  kDma0Dst = 49,
  kDma0Len = 50,
  kDma0Skip0 = 51,
  kDma0Skip1 = 52,
  kIfm2Base0 = 128,
  kIfm2Base1 = 129,
  kIfm2Base2 = 130,
  kIfm2Base3 = 131,
  kIfm2StrideX = 132,
  kIfm2StrideY = 133,
  kIfm2StrideC = 134,
  kWeight1Base = 144,
  kWeight1Length = 145,
  kScale1Base = 146,
  kScale1Length = 147,
};

constexpr uint32_t kOpcodeMask = 0x3FF;
constexpr uint32_t kFormShift = 14;
constexpr uint32_t kFormShort = 0;  // cmd0
constexpr uint32_t kFormLong = 1;   // cmd1
constexpr uint16_t kFirstRegisterOpcode = 0x100;
constexpr uint32_t kNumOpcodes = 0x400;

// The register's name as Vela's definitions spell it ("NPU_SET_IFM_BASE0", "NPU_OP_CONV"),
// or nullptr for an opcode the command set does not define.
const char* cmd0_name(uint16_t opcode);
const char* cmd1_name(uint16_t opcode);

// The command sets: U55 and U65 share this one, U85 has its own (isa_u85.h) in the same
// word format.
enum class CommandSet : uint8_t { kEthosU55, kEthosU85 };
// A command's name in `set`, or nullptr for an opcode that set does not define.
const char* command_name(CommandSet set, bool is_long, uint16_t opcode);

// Field values of the enumerated registers.
enum class Precision : uint8_t { k8 = 0, k16 = 1, k32 = 2, k64 = 3 };
enum class Layout : uint8_t { kNhwc = 0, kNhcwb16 = 1 };
// kDouble, kTruncate and kNatural are U55's OFM_PRECISION encodings; kFloor is U85's only.
enum class RoundMode : uint8_t { kDouble = 0, kTruncate = 1, kNatural = 2, kFloor = 3 };
enum class IfmScaleMode : uint8_t { kOpaOpb16 = 0, kOpa32 = 1, kOpb32 = 2 };
enum class OfmScaleMode : uint8_t { kPerChannel = 0, kGlobal = 1 };
enum class PoolMode : uint8_t { kMax = 0, kAverage = 1, kReduceSum = 2 };
enum class ElementwiseMode : uint8_t {
  kMul = 0,
  kAdd = 1,
  kSub = 2,
  kMin = 3,
  kMax = 4,
  kLeakyRelu = 5,
  kAbs = 6,
  kClz = 7,
  kShr = 8,
  kShl = 9,
};
enum class ActivationFunction : uint8_t { kRelu = 0, kTanh = 3, kSigmoid = 4, kTable0 = 16, kTable7 = 23 };
enum class ClipRange : uint8_t { kOfmPrecision = 0, kForceUint8 = 2, kForceInt8 = 3, kForceInt16 = 5 };
enum class UpscaleMode : uint8_t { kNone = 0, kNearest = 1, kZeros = 2 };
enum class AccFormat : uint8_t { kInt32 = 0, kInt40 = 1, kFloat16 = 2 };

// Bits [lsb, lsb + width) of a register value.
constexpr uint32_t field(uint64_t value, unsigned lsb, unsigned width) {
  return static_cast<uint32_t>((value >> lsb) & ((uint64_t{1} << width) - 1));
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
