#include "runtime/ethosu/payload.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include "runtime/ethosu/driver.h"

namespace etarm {
namespace ethosu {
namespace {

using executorch::aten::ScalarType;

uint32_t read_u32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}

int32_t read_i32(const uint8_t* p) {
  const uint32_t u = read_u32(p);
  int32_t v;
  std::memcpy(&v, &u, sizeof(v));
  return v;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
Error fail(char* why, size_t why_size, const char* format, ...) {
  if (why != nullptr && why_size > 0) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(why, why_size, format, args);
    va_end(args);
  }
  return Error::InvalidProgram;
}

// The blocks of a stream, in the order they must appear.
enum Block { kStart, kCmd, kWeights, kScratch, kInputs, kOutputs, kMeta, kEnd, kNumBlocks };
const char* const kBlockNames[kNumBlocks] = {
    "vela_bin_stream", "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", "etarm_meta", "vela_end_stream",
};

struct RawBlock {
  const uint8_t* data;
  size_t size;
  bool present;
};

// The block name in a header: printable ASCII, NUL-terminated within its 16 bytes, then
// NUL padding. Writes it (at most 15 characters) into `name`; false if malformed.
bool read_name(const uint8_t* header, char (&name)[kBlockNameSize]) {
  size_t length = 0;
  while (length < kBlockNameSize && header[length] != 0) {
    if (header[length] < 0x20 || header[length] > 0x7e) {
      return false;
    }
    name[length] = static_cast<char>(header[length]);
    ++length;
  }
  if (length == 0 || length == kBlockNameSize) {
    return false;
  }
  name[length] = '\0';
  for (size_t i = length; i < kBlockNameSize; ++i) {
    if (header[i] != 0) {
      return false;
    }
  }
  return true;
}

int block_index(const char* name) {
  for (int i = 0; i < kNumBlocks; ++i) {
    if (std::strcmp(name, kBlockNames[i]) == 0) {
      return i;
    }
  }
  return -1;
}

Error read_blocks(const uint8_t* data, size_t size, RawBlock (&blocks)[kNumBlocks], char* why, size_t why_size) {
  if (data == nullptr) {
    return fail(why, why_size, "no payload data");
  }
  if (size % kBlockAlignment != 0) {
    return fail(why, why_size, "payload is %zu bytes, not a multiple of %zu", size, kBlockAlignment);
  }
  for (RawBlock& b : blocks) {
    b = RawBlock{nullptr, 0, false};
  }
  size_t position = 0;
  int previous = -1;
  while (previous != kEnd) {
    if (size - position < kBlockHeaderSize) {
      if (position == size) {
        return fail(why, why_size, "payload ends after '%s' without a 'vela_end_stream' block",
                    previous < 0 ? "(nothing)" : kBlockNames[previous]);
      }
      return fail(why, why_size, "truncated block header at byte %zu", position);
    }
    const uint8_t* header = data + position;
    char name[kBlockNameSize];
    if (!read_name(header, name)) {
      return fail(why, why_size, "block header at byte %zu has no valid name (ASCII, at most 15 characters)",
                  position);
    }
    const int index = block_index(name);
    if (index < 0) {
      return fail(why, why_size, "unknown block '%s' at byte %zu", name, position);
    }
    if (previous < 0 && index != kStart) {
      return fail(why, why_size, "payload starts with block '%s', not 'vela_bin_stream'", name);
    }
    if (index <= previous) {
      return fail(why, why_size, "block '%s' at byte %zu %s", name, position,
                  index == previous ? "appears twice" : "is out of order");
    }
    // Every block up to 'outputs' is required; etarm_meta is optional.
    for (int skipped = previous + 1; skipped < index; ++skipped) {
      if (skipped != kMeta) {
        return fail(why, why_size, "block '%s' at byte %zu: expected '%s' before it (missing or out of order)", name,
                    position, kBlockNames[skipped]);
      }
    }
    const uint32_t block_size = read_u32(header + kBlockNameSize);
    const size_t start = position + kBlockHeaderSize;
    const size_t remaining = size - start;
    if (block_size > remaining) {
      return fail(why, why_size, "block '%s' at byte %zu claims %u bytes; only %zu remain", name, position,
                  static_cast<unsigned>(block_size), remaining);
    }
    const size_t padded = (static_cast<size_t>(block_size) + kBlockAlignment - 1) / kBlockAlignment * kBlockAlignment;
    if (padded > remaining) {
      return fail(why, why_size, "block '%s' at byte %zu: its padding runs past the end", name, position);
    }
    blocks[index] = RawBlock{data + start, block_size, true};
    position = start + padded;
    previous = index;
  }
  if (position != size) {
    return fail(why, why_size, "%zu bytes follow the 'vela_end_stream' block", size - position);
  }
  if (blocks[kStart].size != 0 || blocks[kEnd].size != 0) {
    return fail(why, why_size, "'vela_bin_stream'/'vela_end_stream' blocks must be empty");
  }
  return Error::Ok;
}

size_t dtype_size(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Short:
      return 2;
    case ScalarType::Int:
      return 4;
    default:
      return 0;
  }
}

size_t io_entry_size(uint32_t shape_dims) {
  return (static_cast<size_t>(shape_dims) + 3) * 4;  // shape, elem_size, offset, region
}

// Checks the count of an inputs/outputs block and sets *shape_dims to the entries' form (4,
// or 6 for ExecuTorch 1.5's; left as is when the block is empty); the entries themselves are
// checked by check_entry once the region sizes are known.
Error check_io_block(const RawBlock& block, const char* what, uint32_t* count, uint32_t* shape_dims, char* why,
                     size_t why_size) {
  if (block.size < 4) {
    return fail(why, why_size, "'%s' block of %zu bytes has no count", what, block.size);
  }
  const int32_t n = read_i32(block.data);
  if (n < 0 || static_cast<uint32_t>(n) > kMaxTensors) {
    return fail(why, why_size, "'%s' block: count %d (0..%u)", what, static_cast<int>(n),
                static_cast<unsigned>(kMaxTensors));
  }
  *count = static_cast<uint32_t>(n);
  if (n == 0 && block.size == 4) {
    return Error::Ok;
  }
  const uint32_t forms[] = {4, kIoShapeDims6};
  for (const uint32_t dims : forms) {
    if (block.size == 4 + static_cast<size_t>(n) * io_entry_size(dims)) {
      if (*shape_dims != 0 && *shape_dims != dims) {
        return fail(why, why_size, "'%s' block: entries of %u dims after entries of %u", what,
                    static_cast<unsigned>(dims), static_cast<unsigned>(*shape_dims));
      }
      *shape_dims = dims;
      return Error::Ok;
    }
  }
  return fail(why, why_size, "'%s' block of %zu bytes does not hold %d entries of %zu or %zu bytes", what,
              block.size, static_cast<int>(n), io_entry_size(4), io_entry_size(kIoShapeDims6));
}

TensorEntry decode_entry(const uint8_t* io_block, uint32_t shape_dims, const uint8_t* meta_block,
                         uint32_t meta_index, uint32_t index) {
  const uint8_t* p = io_block + 4 + static_cast<size_t>(index) * io_entry_size(shape_dims);
  TensorEntry e{};
  e.shape_is_vela_view = shape_dims == kIoShapeDims6;
  size_t nbytes = 1;
  for (int d = 0; d < 4; ++d) {
    e.shape4[d] = 1;
  }
  for (uint32_t d = 0; d < shape_dims; ++d) {
    // Dimension d lands at 4 - shape_dims + d; the leading ones (position < 0) fold into 0.
    const int64_t position = 4 - static_cast<int64_t>(shape_dims) + d;
    const int32_t dim = read_i32(p + 4 * d);
    e.shape4[position < 0 ? 0 : position] *= dim;
    nbytes *= static_cast<size_t>(dim > 0 ? dim : 0);
  }
  p += 4 * (shape_dims - 4);  // elem_size, offset and region follow the shape
  e.elem_size = read_u32(p + 16);
  e.offset = read_u32(p + 20);
  e.region = read_u32(p + 24);
  e.nbytes = nbytes * e.elem_size;
  if (meta_block == nullptr) {
    e.dtype = ScalarType::Undefined;
    e.rank = 4;
    for (int d = 0; d < 4; ++d) {
      e.shape[d] = e.shape4[d];
    }
    return e;
  }
  const uint8_t* m = meta_block + kMetaHeaderSize + static_cast<size_t>(meta_index) * kMetaEntrySize;
  e.dtype = dtype_from_code(m[0]);
  e.rank = m[1];
  for (uint32_t d = 0; d < kMaxRank; ++d) {
    e.shape[d] = read_i32(m + 4 + 4 * d);
  }
  return e;
}

// Checks entry `index` of an inputs/outputs block (and its etarm_meta entry).
Error check_entry(const Payload& payload, bool output, uint32_t index, char* why, size_t why_size) {
  const char* what = output ? "outputs" : "inputs";
  const uint8_t* p = (output ? payload.outputs_block : payload.inputs_block) + 4 +
                     static_cast<size_t>(index) * io_entry_size(payload.io_shape_dims);
  // 64-bit arithmetic: shape (< 2^31 each) times element size cannot wrap before the
  // running product is compared with the region size (< 2^32). Leading dimensions fold into
  // one int32 (TensorEntry::shape4), so the element count stays below 2^31.
  uint64_t nbytes = 1;
  for (uint32_t d = 0; d < payload.io_shape_dims; ++d) {
    const int32_t dim = read_i32(p + 4 * d);
    if (dim < 1) {
      return fail(why, why_size, "%s[%u]: shape dimension %u is %d", what, static_cast<unsigned>(index),
                  static_cast<unsigned>(d), static_cast<int>(dim));
    }
    nbytes *= static_cast<uint64_t>(dim);
    if (nbytes > INT32_MAX) {
      return fail(why, why_size, "%s[%u]: shape too large", what, static_cast<unsigned>(index));
    }
  }
  p += 4 * (payload.io_shape_dims - 4);  // elem_size, offset and region follow the shape
  const int32_t elem_size = read_i32(p + 16);
  const int32_t offset = read_i32(p + 20);
  const int32_t region = read_i32(p + 24);
  if (elem_size != 1 && elem_size != 2 && elem_size != 4) {
    return fail(why, why_size, "%s[%u]: element size %d (1, 2 or 4)", what, static_cast<unsigned>(index),
                static_cast<int>(elem_size));
  }
  nbytes *= static_cast<uint64_t>(elem_size);
  uint64_t region_size;
  if (region == static_cast<int32_t>(kRegionScratch)) {
    region_size = payload.scratch_size;
  } else if (region == static_cast<int32_t>(kRegionFastScratch)) {
    region_size = payload.fast_scratch_size;
  } else if (region == static_cast<int32_t>(kRegionInputs) || region == static_cast<int32_t>(kRegionOutputs)) {
    // Direct drive: the I/O regions are as large as the entries in them (computed after
    // every entry is checked); the bound keeps offset + size a valid 32-bit region size.
    region_size = kMaxIoRegionBytes;
  } else {
    return fail(why, why_size, "%s[%u]: region %d (inputs and outputs live in region 1, 2, 3 or 4)", what,
                static_cast<unsigned>(index), static_cast<int>(region));
  }
  if (offset < 0) {
    return fail(why, why_size, "%s[%u]: negative offset %d", what, static_cast<unsigned>(index),
                static_cast<int>(offset));
  }
  if (static_cast<uint64_t>(offset) > region_size || nbytes > region_size - static_cast<uint64_t>(offset)) {
    return fail(why, why_size, "%s[%u]: bytes [%d, %llu) lie outside region %d of %llu bytes", what,
                static_cast<unsigned>(index), static_cast<int>(offset),
                static_cast<unsigned long long>(static_cast<uint64_t>(offset) + nbytes), static_cast<int>(region),
                static_cast<unsigned long long>(region_size));
  }
  if (payload.meta_block == nullptr) {
    return Error::Ok;
  }
  const uint32_t meta_index = output ? payload.num_inputs + index : index;
  const uint8_t* m = payload.meta_block + kMetaHeaderSize + static_cast<size_t>(meta_index) * kMetaEntrySize;
  const ScalarType dtype = dtype_from_code(m[0]);
  const uint32_t rank = m[1];
  const uint8_t layout = m[2];
  if (dtype == ScalarType::Undefined) {
    return fail(why, why_size, "etarm_meta %s[%u]: unknown dtype code %u", what, static_cast<unsigned>(index),
                static_cast<unsigned>(m[0]));
  }
  if (layout != 0 || m[3] != 0) {
    return fail(why, why_size, "etarm_meta %s[%u]: layout %u (only 0, contiguous, is defined)", what,
                static_cast<unsigned>(index), static_cast<unsigned>(layout));
  }
  if (rank > kMaxRank) {
    return fail(why, why_size, "etarm_meta %s[%u]: rank %u (at most %u)", what, static_cast<unsigned>(index),
                static_cast<unsigned>(rank), static_cast<unsigned>(kMaxRank));
  }
  if (dtype_size(dtype) != static_cast<size_t>(elem_size)) {
    return fail(why, why_size, "etarm_meta %s[%u]: dtype %s does not have element size %d", what,
                static_cast<unsigned>(index), executorch::runtime::toString(dtype), static_cast<int>(elem_size));
  }
  // The full shape folded to rank 4 must be the entry's shape4.
  int32_t dims[kMaxRank];
  for (uint32_t d = 0; d < kMaxRank; ++d) {
    dims[d] = read_i32(m + 4 + 4 * d);
    if (d < rank ? dims[d] < 1 : dims[d] != 0) {
      return fail(why, why_size, "etarm_meta %s[%u]: shape dimension %u is %d", what, static_cast<unsigned>(index),
                  static_cast<unsigned>(d), static_cast<int>(dims[d]));
    }
  }
  int64_t folded[4] = {1, 1, 1, 1};
  for (uint32_t d = 0; d < rank; ++d) {
    // Dimension d of `rank` lands at 4 - rank + d; leading ones (position < 0) fold into 0.
    const int64_t position = 4 - static_cast<int64_t>(rank) + d;
    int64_t& slot = folded[position < 0 ? 0 : position];
    slot *= dims[d];
    if (slot > INT32_MAX) {
      return fail(why, why_size, "etarm_meta %s[%u]: shape too large", what, static_cast<unsigned>(index));
    }
  }
  for (int d = 0; d < 4; ++d) {
    if (folded[d] != read_i32(p + 4 * d)) {
      return fail(why, why_size, "etarm_meta %s[%u]: shape does not match the %s entry", what,
                  static_cast<unsigned>(index), what);
    }
  }
  return Error::Ok;
}

}  // namespace

ScalarType dtype_from_code(uint8_t code) {
  switch (code) {
    case 0:
      return ScalarType::Byte;
    case 1:
      return ScalarType::Char;
    case 2:
      return ScalarType::Short;
    case 3:
      return ScalarType::Int;
    case 11:
      return ScalarType::Bool;
    default:
      return ScalarType::Undefined;
  }
}

Error parse_payload(const void* data, size_t size, Payload* out, char* why, size_t why_size) {
  if (why != nullptr && why_size > 0) {
    why[0] = '\0';
  }
  if (out == nullptr) {
    return Error::InvalidArgument;
  }
  RawBlock blocks[kNumBlocks];
  Error err = read_blocks(static_cast<const uint8_t*>(data), size, blocks, why, why_size);
  if (err != Error::Ok) {
    return err;
  }
  Payload p{};
  const RawBlock& cmd = blocks[kCmd];
  if (cmd.size < 8 || cmd.size % 4 != 0 ||
      (std::memcmp(cmd.data, "COP1", 4) != 0 && std::memcmp(cmd.data, "COP2", 4) != 0)) {
    return fail(why, why_size, "'cmd_data' (%zu bytes) is not a COP1 or COP2 command stream of 32-bit words",
                cmd.size);
  }
  p.cmd_data = cmd.data;
  p.cmd_size = cmd.size;
  p.weight_data = blocks[kWeights].data;
  p.weight_size = blocks[kWeights].size;
  if (blocks[kScratch].size != 4) {
    return fail(why, why_size, "'scratch_size' block holds %zu bytes, not 4", blocks[kScratch].size);
  }
  p.scratch_size = read_u32(blocks[kScratch].data);
  p.io_shape_dims = 0;
  err = check_io_block(blocks[kInputs], "inputs", &p.num_inputs, &p.io_shape_dims, why, why_size);
  if (err != Error::Ok) {
    return err;
  }
  err = check_io_block(blocks[kOutputs], "outputs", &p.num_outputs, &p.io_shape_dims, why, why_size);
  if (err != Error::Ok) {
    return err;
  }
  if (p.num_outputs == 0) {
    return fail(why, why_size, "'outputs' block lists no outputs");
  }
  p.inputs_block = blocks[kInputs].data;
  p.outputs_block = blocks[kOutputs].data;
  p.fast_scratch_size = 0;
  p.has_meta = blocks[kMeta].present;
  p.meta_block = nullptr;
  if (p.has_meta) {
    const RawBlock& meta = blocks[kMeta];
    if (meta.size < kMetaHeaderSize) {
      return fail(why, why_size, "'etarm_meta' block of %zu bytes is too short", meta.size);
    }
    const uint32_t version = read_u32(meta.data);
    if (version != kMetaVersion) {
      return fail(why, why_size, "'etarm_meta' version %u (this runtime reads version %u)",
                  static_cast<unsigned>(version), static_cast<unsigned>(kMetaVersion));
    }
    p.fast_scratch_size = read_u32(meta.data + 4);
    if (read_u32(meta.data + 8) != p.num_inputs || read_u32(meta.data + 12) != p.num_outputs) {
      return fail(why, why_size, "'etarm_meta' counts %u inputs/%u outputs; the inputs/outputs blocks %u/%u",
                  static_cast<unsigned>(read_u32(meta.data + 8)), static_cast<unsigned>(read_u32(meta.data + 12)),
                  static_cast<unsigned>(p.num_inputs), static_cast<unsigned>(p.num_outputs));
    }
    const size_t expected = kMetaHeaderSize + (static_cast<size_t>(p.num_inputs) + p.num_outputs) * kMetaEntrySize;
    if (meta.size != expected) {
      return fail(why, why_size, "'etarm_meta' block is %zu bytes, not %zu", meta.size, expected);
    }
    p.meta_block = meta.data;
  }
  for (uint32_t i = 0; i < p.num_inputs; ++i) {
    err = check_entry(p, false, i, why, why_size);
    if (err != Error::Ok) {
      return err;
    }
  }
  for (uint32_t i = 0; i < p.num_outputs; ++i) {
    err = check_entry(p, true, i, why, why_size);
    if (err != Error::Ok) {
      return err;
    }
  }
  // The direct-drive I/O regions end where their last tensor ends.
  p.input_region_size = 0;
  p.output_region_size = 0;
  for (uint32_t i = 0; i < p.num_inputs + p.num_outputs; ++i) {
    const bool output = i >= p.num_inputs;
    const TensorEntry e = tensor_entry(p, output, output ? i - p.num_inputs : i);
    uint32_t* size = e.region == kRegionInputs ? &p.input_region_size
                     : e.region == kRegionOutputs ? &p.output_region_size
                                                   : nullptr;
    if (size != nullptr && e.offset + e.nbytes > *size) {
      *size = static_cast<uint32_t>(e.offset + e.nbytes);
    }
  }
  *out = p;
  return Error::Ok;
}

TensorEntry tensor_entry(const Payload& payload, bool output, uint32_t index) {
  const uint8_t* block = output ? payload.outputs_block : payload.inputs_block;
  const uint32_t meta_index = output ? payload.num_inputs + index : index;
  return decode_entry(block, payload.io_shape_dims, payload.meta_block, meta_index, index);
}

}  // namespace ethosu
}  // namespace etarm
