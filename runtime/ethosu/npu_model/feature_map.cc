#include "runtime/ethosu/npu_model/feature_map.h"

#include <cinttypes>

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

struct OperandRegisters {
  const char* name;
  Cmd0 region, height0_m1, height1_m1, width0_m1, zero_point, precision;
  Cmd1 base0, stride_x, stride_y, stride_c;
  unsigned precision_lsb;  // the OFM's precision field starts one bit lower
};

OperandRegisters registers_of(Operand operand) {
  switch (operand) {
    case Operand::kIfm:
      return {"IFM", Cmd0::kIfmRegion, Cmd0::kIfmHeight0M1, Cmd0::kIfmHeight1M1, Cmd0::kIfmWidth0M1,
              Cmd0::kIfmZeroPoint, Cmd0::kIfmPrecision, Cmd1::kIfmBase0, Cmd1::kIfmStrideX, Cmd1::kIfmStrideY,
              Cmd1::kIfmStrideC, 18};
    case Operand::kIfm2:
      return {"IFM2", Cmd0::kIfm2Region, Cmd0::kIfm2Height0M1, Cmd0::kIfm2Height1M1, Cmd0::kIfm2Width0M1,
              Cmd0::kIfm2ZeroPoint, Cmd0::kIfm2Precision, Cmd1::kIfm2Base0, Cmd1::kIfm2StrideX, Cmd1::kIfm2StrideY,
              Cmd1::kIfm2StrideC, 18};
    case Operand::kOfm:
    default:
      return {"OFM", Cmd0::kOfmRegion, Cmd0::kOfmHeight0M1, Cmd0::kOfmHeight1M1, Cmd0::kOfmWidth0M1,
              Cmd0::kOfmZeroPoint, Cmd0::kOfmPrecision, Cmd1::kOfmBase0, Cmd1::kOfmStrideX, Cmd1::kOfmStrideY,
              Cmd1::kOfmStrideC, 17};
  }
}

// The byte offset of element (y, x, c), or an error if its bytes lie outside the region.
Status element_offset(const FeatureMap& fm, int64_t y, int64_t x, int64_t c, uint64_t* out) {
  const int64_t offset = fm.offset_of(y, x, c);
  if (offset < 0 || static_cast<uint64_t>(offset) + fm.elem_bytes > fm.size) {
    return Status::error(Fault::kOutOfBounds,
                         "%s element (%" PRId64 ", %" PRId64 ", %" PRId64 ") at byte %" PRId64
                         " lies outside region %" PRIu32 " of %" PRIu64 " bytes",
                         fm.name, y, x, c, offset, fm.region, fm.size);
  }
  if (fm.span != nullptr) fm.span->add(static_cast<uint64_t>(offset), static_cast<uint64_t>(offset) + fm.elem_bytes);
  *out = static_cast<uint64_t>(offset);
  return Status();
}

}  // namespace

int64_t FeatureMap::offset_of(int64_t y, int64_t x, int64_t c) const {
  int tile = 0;
  if (x < width0) {
    if (y >= height0) {
      tile = 2;
      y -= height0;
    }
  } else {
    x -= width0;
    tile = 1;
    if (y >= height1) {
      tile = 3;
      y -= height1;
    }
  }
  int64_t offset = static_cast<int64_t>(base[tile]) + y * stride_y + x * stride_x;
  if (layout == Layout::kNhcwb16) {
    offset += (c / 16) * stride_c + (c % 16) * elem_bytes;
  } else {
    offset += c * elem_bytes;
  }
  return offset;
}

int64_t FeatureMap::type_min() const {
  if (elem_bytes == 8) return INT64_MIN;  // 64-bit feature maps are signed
  return is_signed ? -(int64_t{1} << (8 * elem_bytes - 1)) : 0;
}

int64_t FeatureMap::type_max() const {
  if (elem_bytes == 8) return INT64_MAX;
  return is_signed ? (int64_t{1} << (8 * elem_bytes - 1)) - 1 : (int64_t{1} << (8 * elem_bytes)) - 1;
}

Status FeatureMap::read(int64_t y, int64_t x, int64_t c, int32_t* value) const {
  int64_t wide = 0;
  NPU_MODEL_RETURN_IF_ERROR(read_wide(y, x, c, &wide));
  *value = static_cast<int32_t>(wide);
  return Status();
}

Status FeatureMap::write(int64_t y, int64_t x, int64_t c, int32_t value) const {
  return write_wide(y, x, c, value);
}

Status FeatureMap::read_wide(int64_t y, int64_t x, int64_t c, int64_t* value) const {
  uint64_t offset = 0;
  NPU_MODEL_RETURN_IF_ERROR(element_offset(*this, y, x, c, &offset));
  const uint8_t* p = data + offset;
  uint64_t u = 0;
  for (int b = 0; b < elem_bytes; ++b) u |= uint64_t{p[b]} << (8 * b);
  const int bits = 8 * elem_bytes;
  // Sign-extend from the element's top bit (64-bit elements need none).
  if (bits < 64 && is_signed && ((u >> (bits - 1)) & 1) != 0) u |= ~uint64_t{0} << bits;
  *value = static_cast<int64_t>(u);
  return Status();
}

Status FeatureMap::write_wide(int64_t y, int64_t x, int64_t c, int64_t value) const {
  uint64_t offset = 0;
  NPU_MODEL_RETURN_IF_ERROR(element_offset(*this, y, x, c, &offset));
  uint8_t* p = data + offset;
  const uint64_t u = static_cast<uint64_t>(value);
  for (int b = 0; b < elem_bytes; ++b) {
    p[b] = static_cast<uint8_t>(u >> (8 * b));
  }
  return Status();
}

void describe_span(const FeatureMap& fm) {
  if (fm.span != nullptr) {
    fm.span->addressing = {fm.stride_x, fm.stride_y, fm.stride_c, fm.elem_bytes, static_cast<int32_t>(fm.layout)};
  }
}

Status feature_map_from_registers(const RegisterFile& regs, const Memory& memory, Operand operand,
                                  FeatureMap* out) {
  const OperandRegisters r = registers_of(operand);
  FeatureMap fm{};
  fm.name = r.name;
  fm.region = field(regs.get(r.region), 0, 3);
  for (int t = 0; t < 4; ++t) {
    fm.base[t] = regs.address(static_cast<Cmd1>(static_cast<uint16_t>(r.base0) + t));
  }
  fm.height0 = int64_t{regs.get(r.height0_m1)} + 1;
  fm.height1 = int64_t{regs.get(r.height1_m1)} + 1;
  fm.width0 = int64_t{regs.get(r.width0_m1)} + 1;
  fm.stride_x = regs.stride(r.stride_x);
  fm.stride_y = regs.stride(r.stride_y);
  fm.stride_c = regs.stride(r.stride_c);
  const uint16_t precision = regs.get(r.precision);
  fm.is_signed = field(precision, 0, 1) != 0;
  const uint32_t bits = field(precision, r.precision_lsb - 16, 2);
  if (bits == static_cast<uint32_t>(Precision::k64)) {
    return Status::error(Fault::kUnsupported, "%s precision is 64-bit, which is not modelled", r.name);
  }
  fm.elem_bytes = 1 << bits;
  const uint32_t layout = field(precision, 6, 2);
  if (layout > 1) {
    return Status::error(Fault::kMalformedStream, "%s layout field is %u (only NHWC 0 and NHCWB16 1 exist)", r.name,
                         static_cast<unsigned>(layout));
  }
  fm.layout = static_cast<Layout>(layout);
  const uint16_t zp = regs.get(r.zero_point);
  fm.zero_point = fm.is_signed ? int32_t{static_cast<int16_t>(zp)} : int32_t{zp};
  uint8_t* data = nullptr;
  NPU_MODEL_RETURN_IF_ERROR(memory.bytes(fm.region, 0, 0, operand == Operand::kOfm, r.name, &data));
  fm.data = memory.region(fm.region).data;
  fm.size = memory.region(fm.region).size;
  fm.span = memory.span(r.name, fm.region, operand == Operand::kOfm);
  describe_span(fm);
  *out = fm;
  return Status();
}

Status load_feature_map(const FeatureMap& fm, int64_t h, int64_t w, int64_t c, int32_t* dst) {
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t z = 0; z < c; ++z) {
        NPU_MODEL_RETURN_IF_ERROR(fm.read(y, x, z, dst++));
      }
    }
  }
  return Status();
}

Status store_feature_map(const FeatureMap& fm, int64_t h, int64_t w, int64_t c, const int32_t* src) {
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t z = 0; z < c; ++z) {
        NPU_MODEL_RETURN_IF_ERROR(fm.write(y, x, z, *src++));
      }
    }
  }
  return Status();
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
