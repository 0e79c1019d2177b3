// Structural verifier for the .pte flatbuffer (see fb.h). Table-driven: each table of
// program.fbs is described by a short byte string of field kinds, so the code stays
// small however large the schema is.
#include "runtime/core/fb.h"

namespace etarm {
namespace fb {
namespace {

// Field kinds. kTab, kVTab and kUnion are followed by one byte: the table or union id.
enum Kind : uint8_t {
  kEnd = 0,
  kS1, // scalar, 1 byte
  kS2,
  kS4,
  kS8,
  kStr, // string
  kVS1, // vector of 1-byte scalars
  kVS2,
  kVS4,
  kVS8,
  kVStr, // vector of strings
  kTab, // table
  kVTab, // vector of tables
  kUnion, // union: two slots, type byte then value
};

// Table ids.
enum TableId : uint8_t {
  tProgram,
  tExecutionPlan,
  tContainerMetadata,
  tEValue,
  tTensor,
  tAllocationDetails,
  tExtraTensorInfo,
  tInt,
  tBool,
  tDouble,
  tString,
  tIntList,
  tDoubleList,
  tBoolList,
  tTensorList,
  tOptionalTensorList,
  tNull,
  tChain,
  tInstruction,
  tKernelCall,
  tDelegateCall,
  tMoveCall,
  tJumpFalseCall,
  tFreeCall,
  tFrameList,
  tFrame,
  tOperator,
  tBackendDelegate,
  tDataRef,
  tCompileSpec,
  tNonConstBufferDevice,
  tBuffer,
  tInlineData,
  tDataSegment,
  tSubsegmentOffsets,
  tNamedData,
  kNumTables
};

// Field layouts, in schema order (see program.fbs).
const uint8_t kProgram[] = {kS4, kVTab, tExecutionPlan, kVTab, tBuffer, kVTab, tInlineData,
    kVTab, tDataSegment, kTab, tSubsegmentOffsets, kVTab, tSubsegmentOffsets, kVTab, tNamedData, kEnd};
const uint8_t kExecutionPlan[] = {kStr, kTab, tContainerMetadata, kVTab, tEValue, kVS4, kVS4,
    kVTab, tChain, kVTab, tOperator, kVTab, tBackendDelegate, kVS8, kVTab, tNonConstBufferDevice, kEnd};
const uint8_t kTwoStrings[] = {kStr, kStr, kEnd};
const uint8_t kEValue[] = {kUnion, 0, kEnd};
const uint8_t kTensor[] = {kS1, kS4, kVS4, kVS1, kS1, kS4, kTab, tAllocationDetails, kS1, kS1,
    kTab, tExtraTensorInfo, kEnd};
const uint8_t kThreeU32[] = {kS4, kS4, kS4, kEnd};
const uint8_t kExtraTensorInfo[] = {kS8, kStr, kS1, kS1, kS1, kEnd};
const uint8_t kOneS8[] = {kS8, kEnd};
const uint8_t kOneS1[] = {kS1, kEnd};
const uint8_t kOneStr[] = {kStr, kEnd};
const uint8_t kOneVS8[] = {kVS8, kEnd};
const uint8_t kOneVS4[] = {kVS4, kEnd};
const uint8_t kOneVS1[] = {kVS1, kEnd};
const uint8_t kNone[] = {kEnd};
const uint8_t kChain[] = {kVS4, kVS4, kVTab, tInstruction, kVTab, tFrameList, kEnd};
const uint8_t kInstruction[] = {kUnion, 1, kEnd};
const uint8_t kS4VS4[] = {kS4, kVS4, kEnd};
const uint8_t kTwoS4[] = {kS4, kS4, kEnd};
const uint8_t kOneS4[] = {kS4, kEnd};
const uint8_t kFrameList[] = {kVTab, tFrame, kEnd};
const uint8_t kFrame[] = {kStr, kS4, kStr, kStr, kEnd};
const uint8_t kBackendDelegate[] = {kStr, kTab, tDataRef, kVTab, tCompileSpec, kEnd};
const uint8_t kDataRef[] = {kS1, kS4, kEnd};
const uint8_t kCompileSpec[] = {kStr, kVS1, kEnd};
const uint8_t kNonConstBufferDevice[] = {kS4, kS1, kS1, kEnd};
const uint8_t kTwoS8[] = {kS8, kS8, kEnd};
const uint8_t kSubsegmentOffsets[] = {kS4, kVS8, kEnd};
const uint8_t kNamedData[] = {kStr, kS4, kEnd};

const uint8_t* const kLayouts[kNumTables] = {
    kProgram, kExecutionPlan, kTwoStrings, kEValue, kTensor, kThreeU32, kExtraTensorInfo,
    kOneS8 /*Int*/, kOneS1 /*Bool*/, kOneS8 /*Double*/, kOneStr /*String*/, kOneVS8 /*IntList*/,
    kOneVS8 /*DoubleList*/, kOneVS1 /*BoolList*/, kOneVS4 /*TensorList*/,
    kOneVS4 /*OptionalTensorList*/, kNone /*Null*/, kChain, kInstruction, kS4VS4 /*KernelCall*/,
    kS4VS4 /*DelegateCall*/, kTwoS4 /*MoveCall*/, kTwoS4 /*JumpFalseCall*/, kOneS4 /*FreeCall*/,
    kFrameList, kFrame, kTwoStrings /*Operator*/, kBackendDelegate, kDataRef, kCompileSpec,
    kNonConstBufferDevice, kOneVS1 /*Buffer*/, kOneVS1 /*InlineData*/, kTwoS8 /*DataSegment*/,
    kSubsegmentOffsets, kNamedData};

// Union members, indexed by the union's type byte (0 = NONE).
const uint8_t kKernelTypes[] = {tNull, tInt, tBool, tDouble, tTensor, tString, tIntList,
    tDoubleList, tBoolList, tTensorList, tOptionalTensorList};
const uint8_t kInstructionArguments[] = {tKernelCall, tDelegateCall, tMoveCall, tJumpFalseCall, tFreeCall};

class Verifier {
 public:
  Verifier(const uint8_t* buf, size_t size)
      : buf_(buf), size_(size), budget_(size / 4 + 64) {}

  bool program() {
    if (size_ < 8) {
      return false;
    }
    return table(rd32(buf_), tProgram);
  }

 private:
  bool in(uint64_t pos, uint64_t len) const {
    return pos <= size_ && len <= size_ - pos;
  }
  bool spend() {
    if (budget_ == 0) {
      return false;
    }
    --budget_;
    return true;
  }
  // Resolves the uoffset stored at `pos` (already known to be in bounds).
  bool follow(uint64_t pos, uint64_t* target) const {
    *target = pos + rd32(buf_ + pos);
    return *target < size_;
  }
  bool vector(uint64_t pos, unsigned elem_size, uint32_t* len) {
    if (!spend() || !in(pos, 4)) {
      return false;
    }
    *len = rd32(buf_ + pos);
    const uint64_t data = pos + 4;
    if (!in(data, static_cast<uint64_t>(*len) * elem_size)) {
      return false;
    }
    // Vectors of multi-byte scalars are handed out as spans: keep them aligned.
    const uintptr_t addr = reinterpret_cast<uintptr_t>(buf_ + data);
    return elem_size == 1 || (addr & (elem_size - 1)) == 0;
  }
  bool string(uint64_t pos) {
    uint32_t len;
    return vector(pos, 1, &len) && in(pos + 4, static_cast<uint64_t>(len) + 1) &&
        buf_[pos + 4 + len] == 0;
  }
  bool vector_of_refs(uint64_t pos, uint8_t kind, uint8_t id) {
    uint32_t len;
    if (!vector(pos, 4, &len)) {
      return false;
    }
    for (uint32_t i = 0; i < len; ++i) {
      uint64_t target;
      if (!follow(pos + 4 + 4ull * i, &target)) {
        return false;
      }
      if (kind == kVStr ? !string(target) : !table(target, id)) {
        return false;
      }
    }
    return true;
  }

  bool table(uint64_t pos, uint8_t id) {
    if (!spend() || id >= kNumTables || !in(pos, 4) || ++depth_ > 8) {
      return false;
    }
    const int64_t vt = static_cast<int64_t>(pos) - static_cast<int32_t>(rd32(buf_ + pos));
    if (vt < 0 || !in(static_cast<uint64_t>(vt), 4)) {
      return false;
    }
    const uint16_t vt_len = rd16(buf_ + vt);
    const uint16_t table_len = rd16(buf_ + vt + 2);
    if (vt_len < 4 || (vt_len & 1) || !in(static_cast<uint64_t>(vt), vt_len) || !in(pos, table_len)) {
      return false;
    }
    uint8_t union_type = 0;
    unsigned slot = 0;
    for (const uint8_t* f = kLayouts[id]; *f != kEnd; ++f, ++slot) {
      const uint8_t kind = *f;
      const uint8_t arg = (kind == kTab || kind == kVTab || kind == kUnion) ? *++f : 0;
      if (kind == kUnion) {
        // Slot `slot` holds the type byte, slot + 1 the value.
        const uint16_t type_off = field(vt, vt_len, slot);
        if (type_off != 0) {
          if (!in(pos + type_off, 1)) {
            return false;
          }
          union_type = buf_[pos + type_off];
        }
        ++slot;
        const uint16_t value_off = field(vt, vt_len, slot);
        if (union_type == 0) {
          if (value_off != 0) {
            return false; // NONE with a value: never written by a builder
          }
          continue;
        }
        const uint8_t* members = arg == 0 ? kKernelTypes : kInstructionArguments;
        const unsigned n_members = arg == 0 ? sizeof(kKernelTypes) : sizeof(kInstructionArguments);
        uint64_t target;
        if (union_type > n_members || value_off == 0 || !in(pos + value_off, 4) ||
            !follow(pos + value_off, &target) || !table(target, members[union_type - 1])) {
          return false;
        }
        continue;
      }
      const uint16_t off = field(vt, vt_len, slot);
      if (off == 0) {
        continue;
      }
      static const uint8_t kScalarSize[] = {0, 1, 2, 4, 8};
      const unsigned size = kind <= kS8 ? kScalarSize[kind] : 4;
      if (!in(pos + off, size)) {
        return false;
      }
      if (kind <= kS8) {
        continue;
      }
      uint64_t target;
      if (!follow(pos + off, &target)) {
        return false;
      }
      uint32_t len;
      bool ok;
      switch (kind) {
        case kStr:
          ok = string(target);
          break;
        case kVS1:
        case kVS2:
        case kVS4:
        case kVS8: // in the order of kS1..kS8, as far from kStr as those are from kEnd
          ok = vector(target, kScalarSize[kind - kStr], &len);
          break;
        case kTab:
          ok = table(target, arg);
          break;
        default: // kVStr, kVTab
          ok = vector_of_refs(target, kind, arg);
          break;
      }
      if (!ok) {
        return false;
      }
    }
    --depth_;
    return true;
  }

  uint16_t field(int64_t vt, uint16_t vt_len, unsigned slot) const {
    const unsigned at = 4 + 2 * slot;
    return at + 2 <= vt_len ? rd16(buf_ + vt + at) : 0;
  }

  const uint8_t* buf_;
  size_t size_;
  size_t budget_; // bounds the work on files whose tables share children
  int depth_ = 0;
};

} // namespace

bool verify_program(const uint8_t* buf, size_t size) {
  if (buf == nullptr || size > 0x7fffffffu) {
    return false;
  }
  return Verifier(buf, size).program();
}

} // namespace fb
} // namespace etarm
