// The Ethos-U85 command set as the NPU model reads it: the opcodes of the two command forms,
// the bit fields of the registers they set and the enumerations of those fields.
//
// The word format is U55's (isa.h: opcode in bits 0..9, form in 14..15, a short command's
// 16-bit parameter in 16..31, a long command's payload in the next word), but the command set
// differs: new operations (RESIZE, and BRANCH as a long command), registers U55 lacks (IFM
// broadcast, weight format, DMA strides and gather/scatter indices, resize, three more weight
// streams, an elementwise scalar), registers U55 has that U85 dropped (IFM_IB_END, AB_START,
// PARALLEL_MODE, IFM2_SCALAR, IFM2_IB_START, SCALE1), and most fields moved. Field positions
// below count bits of the command's first word (a short command's parameter starts at 16);
// for a long command, `Command::value()` puts those bits above the payload word (bit 32 up).
//
// Values and layouts are the facts of Vela 5.2.0's register definitions
// (ethosu/regor/architecture/ethosu85/ethos_u85_interface.hpp, architecture version 2.0).
#pragma once

#include <cstdint>

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace u85 {

// Short commands (cmd0): operations below 0x100, register writes from 0x100.
enum class Cmd0 : uint16_t {
  kStop = 0,
  kIrq = 1,
  kConv = 2,
  kDepthwise = 3,
  kPool = 5,
  kElementwise = 6,
  kResize = 7,
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
  kIfmBroadcast = 264,
  kIfmZeroPoint = 265,
  kIfmWidth0M1 = 266,
  kIfmHeight0M1 = 267,
  kIfmHeight1M1 = 268,
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
  kAccFormat = 292,
  kActivation = 293,
  kActivationMin = 294,
  kActivationMax = 295,
  kWeightRegion = 296,
  kScaleRegion = 297,
  kResizeXScaleNM1 = 298,
  kResizeYScaleNM1 = 299,
  kResizeXOffset = 300,
  kResizeYOffset = 301,
  kWeightFormat = 302,
  kBlockDep = 303,
  kDma0SrcRegion = 304,
  kDma0DstRegion = 305,
  kDma0Size0 = 306,
  kDma0Size1 = 307,
  kDma0IdxRegion = 308,
  kIfm2Broadcast = 384,
  kIfm2Precision = 389,
  kIfm2ZeroPoint = 393,
  kIfm2Width0M1 = 394,
  kIfm2Height0M1 = 395,
  kIfm2Height1M1 = 396,
  kIfm2Region = 399,
};

// Long commands (cmd1): register writes, and BRANCH (an operation: it moves the command
// pointer, so it is the one long opcode at or above 0x100).
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
  kIfmScale = 37,
  kIfm2Scale = 38,
  kOpScalar = 39,
  kDma0Src = 48,
  kDma0Dst = 49,
  kDma0Len = 50,
  kDma0SrcStride0 = 51,
  kDma0SrcStride1 = 52,
  kDma0DstStride0 = 53,
  kDma0DstStride1 = 54,
  kDma0Idx = 55,
  kDma0IdxMax = 56,
  kDma0IdxSkip1 = 57,
  kIfm2Base0 = 128,
  kIfm2Base1 = 129,
  kIfm2Base2 = 130,
  kIfm2Base3 = 131,
  kIfm2StrideX = 132,
  kIfm2StrideY = 133,
  kIfm2StrideC = 134,
  kWeight1Base = 144,
  kWeight1Length = 145,
  kWeight2Base = 146,
  kWeight2Length = 147,
  kWeight3Base = 148,
  kWeight3Length = 149,
  kResizeX = 150,
  kResizeY = 151,
  kBranch = 256,
};

// The register's name as Vela's definitions spell it, or nullptr for an opcode the U85
// command set does not define.
const char* cmd0_name(uint16_t opcode);
const char* cmd1_name(uint16_t opcode);

// ---- fields: {lsb, width} within the command's first word (a long command's value() holds
// them 32 bits higher) --------------------------------------------------------------------
struct Field {
  uint8_t lsb;
  uint8_t width;
};

// Operation parameters.
constexpr Field kConvWeightsIfm2{16, 1};      // NPU_OP_CONV: weights come from IFM2 (matmul)
constexpr Field kPoolMode{16, 3};             // NPU_OP_POOL
constexpr Field kElementwiseMode{16, 6};      // NPU_OP_ELEMENTWISE
constexpr Field kResizeMode{16, 2};           // NPU_OP_RESIZE
constexpr Field kDmaWaitK{16, 2};             // NPU_OP_DMA_WAIT: outstanding DMAs allowed
constexpr Field kBranchCondition{16, 1};      // NPU_OP_BRANCH (its payload is the target)

// NPU_SET_IFM_PRECISION and NPU_SET_IFM2_PRECISION.
constexpr Field kIfmSigned{16, 1};
constexpr Field kIfmPrecision{18, 2};
constexpr Field kIfmFormat{22, 2};
constexpr Field kIfmStorage{30, 2};
// NPU_SET_OFM_PRECISION.
constexpr Field kOfmSigned{16, 1};
constexpr Field kOfmPrecision{17, 2};
constexpr Field kOfmFormat{22, 2};
constexpr Field kOfmScaleMode{24, 1};
constexpr Field kOfmReverse{25, 2};
constexpr Field kOfmTranspose{27, 3};
constexpr Field kOfmStorage{30, 2};
// NPU_SET_IFM_PAD_* (top and left 7 bits, right and bottom 8), NPU_SET_IFM_UPSCALE,
// NPU_SET_IFM_BROADCAST / NPU_SET_IFM2_BROADCAST, NPU_SET_*_REGION.
constexpr Field kPadTopLeft{16, 7};
constexpr Field kPadRightBottom{16, 8};
constexpr Field kUpscaleMode{16, 2};
constexpr Field kBroadcastMode{16, 4};
constexpr Field kRegion{16, 3};
// NPU_SET_KERNEL_STRIDE: stride - 1 is split in a low bit and high bits.
constexpr Field kStrideXLsb{16, 1};
constexpr Field kStrideYLsb{17, 1};
constexpr Field kWeightOrder{18, 1};
constexpr Field kDilationX{19, 1};
constexpr Field kDilationY{20, 1};
constexpr Field kDecomposition{21, 1};
constexpr Field kStrideXMsb{22, 1};
constexpr Field kStrideYMsb{25, 1};
// NPU_SET_ACC_FORMAT.
constexpr Field kAccFormat{16, 2};
constexpr Field kAccInput{20, 2};
constexpr Field kAccOutput{22, 1};
constexpr Field kMicroblock{24, 3};
// NPU_SET_ACTIVATION.
constexpr Field kActivationFunction{16, 5};
constexpr Field kActivationTable{21, 3};
constexpr Field kActivationClipRange{28, 1};
// NPU_SET_WEIGHT_FORMAT.
constexpr Field kWeightFormat{16, 1};
constexpr Field kWeightSparsity{20, 1};
// NPU_SET_DMA0_SRC_REGION / NPU_SET_DMA0_DST_REGION (no stride mode on the destination).
constexpr Field kDmaRegionMode{24, 1};
constexpr Field kDmaStrideMode{25, 2};
constexpr Field kDmaIdxMode{27, 1};
// NPU_SET_OFM_SCALE, NPU_SET_IFM_SCALE, NPU_SET_IFM2_SCALE: the multiplier is the payload
// word's low 31 bits; the first word carries the shift, the double-rounding shift and the
// rounding mode (3 bits for the OFM, 1 for the operands).
constexpr Field kScaleShift{16, 6};
constexpr Field kScaleDoubleRound{22, 5};
constexpr Field kOfmRoundMode{29, 3};
constexpr Field kIfmRoundMode{29, 1};
// NPU_SET_BLOCKDEP.
constexpr Field kBlockDep{16, 3};

// A field of a short command's parameter (bits 16..31 of its word).
constexpr uint32_t param_field(uint16_t param, Field f) {
  return (uint32_t{param} >> (f.lsb - 16)) & ((1u << f.width) - 1);
}
// A field of a long command's value (payload below, first word's bits 16..31 above).
constexpr uint32_t value_field(uint64_t value, Field f) {
  return static_cast<uint32_t>((value >> (f.lsb + 16)) & ((uint64_t{1} << f.width) - 1));
}

// ---- enumerations ----------------------------------------------------------------------
enum class Precision : uint8_t { k8 = 0, k16 = 1, k32 = 2, k64 = 3 };
enum class Format : uint8_t { kNhwc = 0, kNhcwb16 = 1 };
enum class Storage : uint8_t { kTile2x2 = 0, kTile3x1 = 1, kChained = 2, kNone = 3 };
enum class Reverse : uint8_t { kNone = 0, kH = 1, kW = 2, kC = 3 };
enum class Transpose : uint8_t { kHwc = 0, kWhc = 1, kHcw = 2, kWch = 3, kChw = 6, kCwh = 7 };
enum class Broadcast : uint8_t {
  kNone = 0,
  kH = 1,
  kW = 2,
  kHW = 3,
  kC = 4,
  kCH = 5,
  kCW = 6,
  kCWH = 7,
  kScalar = 8,
};
enum class OfmScaleMode : uint8_t { kPerChannel = 0, kGlobal = 1 };
enum class AccFormat : uint8_t { kInt32 = 0, kInt48 = 1 };
enum class AccInput : uint8_t { kReset = 0, kKeep = 1, kIfm2 = 2 };
enum class AccOutput : uint8_t { kEnable = 0, kDisable = 1 };
enum class ActivationFunction : uint8_t {
  kNone = 0,
  kLutU8U8 = 1,
  kLutS8S8 = 4,
  kLutS8S16 = 5,
  kLutS8S32 = 7,
  kLutS16S16 = 8,
  kLutS16S32 = 9,
  kTanh = 10,
  kSigmoid = 11,
};
enum class ClipRange : uint8_t { kOfmType = 0, kNone = 1 };
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
  kLsr = 10,
  kDiv = 11,
  kCmpEq = 16,
  kCmpNe = 17,
  kCmpGe = 18,
  kCmpGt = 19,
  kAnd = 33,
  kOr = 34,
  kXor = 35,
  kNot = 36,
  kAndNot = 42,
};
enum class PoolMode : uint8_t {
  kMax = 0,
  kAverage = 1,
  kReduceSum = 2,
  kSum = 3,
  kNone = 4,
  kMin = 5,
  kArgmaxX = 6,
  kArgmaxY = 7,
};
enum class ResizeMode : uint8_t { kBilinear = 0, kReplicate = 1, kNearest = 2 };
enum class OfmRoundMode : uint8_t {
  kDoubleSymmetric = 0,
  kNatural = 1,
  kDoubleAsymmetric = 2,
  kSymmetric = 3,
  kTruncateToZero = 4,
  kTruncateToLower = 5,
};
enum class IfmRoundMode : uint8_t { kDoubleSymmetric = 0, kNatural = 1 };
enum class WeightFormat : uint8_t { kStandard = 0, kFast = 1 };  // SWD, FWD
enum class WeightOrder : uint8_t { kDepthFirst = 0, kPartKernelFirst = 1 };
enum class WeightSparsity : uint8_t { kNone = 0, kSparse2of4 = 1 };
enum class Microblock : uint8_t { k1x1 = 0, k1x2 = 1, k1x4 = 2, k2x2 = 3, k2x4 = 4, k4x4 = 5 };
enum class DmaRegionMode : uint8_t { kExternal = 0, kInternal = 1 };
enum class DmaStrideMode : uint8_t { k1D = 0, k2D = 1, k3D = 2 };

// Names of the enumerated values for messages ("ELEMENTWISE DIV"), or "?" for a value the
// command set does not define.
const char* elementwise_mode_name(uint32_t mode);
const char* pool_mode_name(uint32_t mode);
const char* activation_function_name(uint32_t function);

}  // namespace u85
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
