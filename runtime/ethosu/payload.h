// Reading the EthosUBackend payload (docs/payload_formats.md, section EthosUBackend): a
// stream of 16-byte aligned named blocks holding Vela's command stream, the weights, the
// scratch size and where each input and output lives.
//
// parse_payload() checks everything before anything is used: the block framing, names and
// order, each block's size, counts, I/O entries (element size, region, offset + size
// within the region) and, when present, etarm_meta (version, dtypes, ranks, shapes
// agreeing with the I/O entries). After it returns Ok, the accessors below cannot read
// outside the payload.
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace etarm {
namespace ethosu {

using executorch::runtime::Error;

constexpr size_t kBlockAlignment = 16;
constexpr size_t kBlockHeaderSize = 32;  // name[16], u32 size, 12 reserved bytes
constexpr size_t kBlockNameSize = 16;
constexpr size_t kIoEntrySize = 28;      // i32 shape[4], elem_size, offset, region
// ExecuTorch 1.5's Arm backend writes i32 shape[6] instead (its view of the tensor, which
// need not be the delegate argument's shape: a [2, 16] argument can be 1x1x2x1x1x16).
constexpr uint32_t kIoShapeDims6 = 6;
constexpr size_t kMetaHeaderSize = 16;   // u32 version, fast_scratch_size, n_inputs, n_outputs
constexpr size_t kMetaEntrySize = 28;    // u8 dtype, rank, layout, 0; i32 shape[6]
constexpr uint32_t kMetaVersion = 1;
constexpr uint32_t kMaxRank = 6;
// Upper bound on the inputs (and on the outputs) of one partition: far above what a
// partition has, low enough that a garbled count is caught before it is used.
constexpr uint32_t kMaxTensors = 1024;
// Upper bound on a direct-drive input or output region (offset + size of its tensors).
constexpr uint64_t kMaxIoRegionBytes = 0x7FFFFFFF;

// Where one input or output lives and what it is.
struct TensorEntry {
  // From the inputs/outputs block.
  int32_t shape4[4];  // shape padded with leading 1s to rank 4 (leading dims folded)
  // The entry had 6 dims (ExecuTorch 1.5's layout): only its byte count describes the
  // argument, not its shape.
  bool shape_is_vela_view;
  uint32_t elem_size;
  uint32_t offset;  // bytes from the region's base address
  uint32_t region;  // kRegionScratch, kRegionFastScratch, or kRegionInputs/kRegionOutputs (direct drive)
  size_t nbytes;    // product(shape4) * elem_size, within the region
  // From etarm_meta; without it dtype is Undefined and rank/shape describe shape4.
  executorch::aten::ScalarType dtype;
  uint32_t rank;
  int32_t shape[kMaxRank];
};

// A validated payload: pointers into the bytes parse_payload() was given.
struct Payload {
  const uint8_t* cmd_data;
  size_t cmd_size;
  const uint8_t* weight_data;
  size_t weight_size;
  uint32_t scratch_size;
  uint32_t fast_scratch_size;
  // Direct drive (entries in regions 3 and 4): the end of the last tensor in each; else 0.
  uint32_t input_region_size;
  uint32_t output_region_size;
  uint32_t num_inputs;
  uint32_t num_outputs;
  uint32_t io_shape_dims;  // dims per inputs/outputs entry: 4 (etarm), or kIoShapeDims6
  bool has_meta;
  // Raw blocks, read by tensor_entry().
  const uint8_t* inputs_block;
  const uint8_t* outputs_block;
  const uint8_t* meta_block;  // nullptr without etarm_meta
};

// Checks `data[0, size)` and fills *out. On failure returns InvalidProgram and, when
// `why` is given, writes a one-line reason (NUL-terminated, truncated to `why_size`).
// Never reads outside `data[0, size)`. `data` need not be aligned.
Error parse_payload(const void* data, size_t size, Payload* out, char* why = nullptr, size_t why_size = 0);

// Input (`output` false) or output `index` of a payload parse_payload() accepted;
// index < num_inputs (num_outputs).
TensorEntry tensor_entry(const Payload& payload, bool output, uint32_t index);

// The dtype an etarm_meta dtype code names (Undefined for codes etarm does not write).
executorch::aten::ScalarType dtype_from_code(uint8_t code);

}  // namespace ethosu
}  // namespace etarm
