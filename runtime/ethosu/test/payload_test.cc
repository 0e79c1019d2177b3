// EthosUBackend on synthetic payloads, through the backend ExecuTorch finds registered
// under "EthosUBackend" (the genuine libexecutorch.so on the host):
//  - a payload using every feature runs: the fake driver gets the command stream, the
//    weights region inside the payload, the arena and the fast scratch; inputs land at
//    their offsets (int64 narrowed to int32), outputs come back (int32 widened to int64);
//  - the upstream form without etarm_meta runs too;
//  - a table of targeted corruptions is rejected by parse_payload and by init with the
//    expected error and reason; binding errors at execute are rejected before the NPU runs;
//  - the driver hook (none installed, driver failure) and the arena hook.
#include <cinttypes>
#include <functional>

#include "runtime/ethosu/test/test_util.h"
#include "runtime/ethosu/testing/recording_driver.h"

namespace etarm {
namespace ethosu {
namespace test {
namespace {

using testing::RecordingDriver;

// Tensors for the delegate call of `spec`: `types` overrides the dtype per argument
// (inputs, then outputs); ScalarType::Undefined keeps the one the payload names.
struct Args {
  std::vector<std::unique_ptr<OwnedTensor>> tensors;
  std::vector<EValue*> values;
};

Args make_args(const Spec& spec, const std::vector<ScalarType>& types = {}) {
  Args args;
  size_t i = 0;
  for (const auto* list : {&spec.inputs, &spec.outputs}) {
    for (const Io& io : *list) {
      ScalarType type = i < types.size() ? types[i] : ScalarType::Undefined;
      if (type == ScalarType::Undefined) {
        type = scalar_type_of(io.dtype_code);
      }
      args.tensors.push_back(std::make_unique<OwnedTensor>(type, io.shape));
      args.values.push_back(args.tensors.back()->value());
      ++i;
    }
  }
  return args;
}

// full_spec()'s arguments: input 1 and output 1 are int64 in the program.
std::vector<ScalarType> full_types() {
  return {ScalarType::Undefined, ScalarType::Long, ScalarType::Undefined,
          ScalarType::Undefined, ScalarType::Long, ScalarType::Undefined};
}

void fill_inputs(Args& args, const Spec& spec) {
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    OwnedTensor& t = *args.tensors[i];
    for (size_t k = 0; k < t.nbytes(); ++k) {
      t.bytes()[k] = static_cast<uint8_t>(k * 13 + i * 71 + 5);
    }
  }
}

// The int64 input's values: both ends of the int32 range and some in between.
void fill_int64_input(OwnedTensor& t, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    int64_t v = static_cast<int64_t>(k) * 123457 - 600000;
    if (k == 0) v = INT32_MIN;
    if (k == 1) v = INT32_MAX;
    std::memcpy(t.bytes() + 8 * k, &v, 8);
  }
}

bool contains(const char* text, const char* part) {
  return std::strstr(text, part) != nullptr;
}

TEST(EthosUPayload, Registration) {
  EXPECT_NE(backend(), nullptr);
  EXPECT_EQ(registration_status(), Error::Ok);
  EXPECT_TRUE(backend() != nullptr && backend()->is_available());
}

// Runs `spec` (meta or not) end to end and checks both directions of the copy.
void run_roundtrip(const Spec& spec, const std::vector<ScalarType>& types, const char* label) {
  std::printf("roundtrip: %s\n", label);
  const std::vector<uint8_t> bytes = serialize(blocks_of(spec));
  auto payload = exact_copy(bytes);
  RecordingDriver npu;
  set_driver(&npu);
  Instance instance;
  EXPECT_EQ(instance.init(payload.get(), bytes.size()), Error::Ok);
  if (instance.handle() == nullptr) {
    set_driver(nullptr);
    return;
  }
  const HandleInfo info = instance.info();
  Args args = make_args(spec, types);
  fill_inputs(args, spec);
  const bool int64_io = types.size() > 1 && types[1] == ScalarType::Long;
  if (int64_io) {
    fill_int64_input(*args.tensors[1], args.tensors[1]->nbytes() / 8);
  }
  for (size_t call = 0; call < 2; ++call) {
    EXPECT_EQ(instance.execute(args.values), Error::Ok);
    EXPECT_EQ(npu.invocations().size(), call + 1);
    if (npu.invocations().size() != call + 1) break;
    const auto& inv = npu.invocations()[call];
    // The command stream is the payload's own block, in place and 16-byte aligned.
    EXPECT_EQ(inv.command_stream, spec.cmd);
    EXPECT_EQ(inv.command_stream_address, payload.get() + block_offset(bytes, "cmd_data") + 32);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(inv.command_stream_address) % 16, 0u);
    EXPECT_EQ(inv.regions.size(), size_t{kNumRegions});
    if (inv.regions.size() != kNumRegions) break;
    // Region 0: the weights, in place in the payload.
    EXPECT_EQ(inv.regions[0].address, payload.get() + block_offset(bytes, "weight_data") + 32);
    EXPECT_EQ(inv.regions[0].bytes, spec.weights);
    // Region 1: the arena; region 2: the fast scratch (absent without etarm_meta).
    EXPECT_EQ(inv.regions[1].size, spec.scratch_size);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(inv.regions[1].address) % 16, 0u);
    EXPECT_EQ(inv.regions[2].size, spec.meta ? spec.fast_scratch_size : 0u);
    EXPECT_EQ(inv.regions[1].address, info.regions[1].address);
    // Regions 3 and 4 (direct drive): as large as the tensors in them, 16-byte aligned.
    for (const uint32_t r : {uint32_t{kRegionInputs}, uint32_t{kRegionOutputs}}) {
      size_t end = 0;
      for (const Io& io : r == kRegionInputs ? spec.inputs : spec.outputs) {
        end = io.region == static_cast<int32_t>(r) && io.offset + io.nbytes() > end ? io.offset + io.nbytes() : end;
      }
      EXPECT_EQ(inv.regions[r].size, end);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(inv.regions[r].address) % 16, 0u);
      EXPECT_EQ(inv.regions[r].address == nullptr, end == 0);
    }
    // Inputs at their offsets.
    for (size_t i = 0; i < spec.inputs.size(); ++i) {
      const Io& io = spec.inputs[i];
      const std::vector<uint8_t>& region = inv.regions[io.region].bytes;
      EXPECT_LE(io.offset + io.nbytes(), region.size());
      if (io.offset + io.nbytes() > region.size()) continue;
      const uint8_t* got = region.data() + io.offset;
      if (i == 1 && int64_io) {
        for (size_t k = 0; k < io.nbytes() / 4; ++k) {
          int64_t want;
          int32_t have;
          std::memcpy(&want, args.tensors[1]->bytes() + 8 * k, 8);
          std::memcpy(&have, got + 4 * k, 4);
          EXPECT_EQ(have, want);
        }
      } else {
        EXPECT_EQ(std::memcmp(got, args.tensors[i]->bytes(), io.nbytes()), 0);
      }
    }
    // Outputs: the fake's pattern, copied back.
    for (size_t o = 0; o < spec.outputs.size(); ++o) {
      const Io& io = spec.outputs[o];
      OwnedTensor& t = *args.tensors[spec.inputs.size() + o];
      const bool widened = int64_io && o == 1;
      const size_t elem = widened ? 4 : dtype_bytes(io.dtype_code);
      for (size_t k = 0; k < io.nbytes() / elem; ++k) {
        uint8_t expected[4];
        for (size_t b = 0; b < elem; ++b) {
          expected[b] = RecordingDriver::pattern_byte(io.region, io.offset + k * elem + b, call);
        }
        if (widened) {
          int32_t narrow;
          int64_t wide;
          std::memcpy(&narrow, expected, 4);
          std::memcpy(&wide, t.bytes() + 8 * k, 8);
          EXPECT_EQ(wide, static_cast<int64_t>(narrow));
        } else {
          EXPECT_EQ(std::memcmp(t.bytes() + k * elem, expected, elem), 0);
        }
      }
    }
  }
  set_driver(nullptr);
}

TEST(EthosUPayload, RoundTrips) {
  run_roundtrip(full_spec(), full_types(), "every feature, with etarm_meta");
  Spec plain = full_spec();
  plain.meta = false;  // the upstream form: no fast scratch, shapes folded to rank 4
  plain.fast_scratch_size = 0;
  plain.inputs[2].region = 1;
  plain.inputs[2].offset = 112;
  plain.outputs[2].region = 1;
  plain.outputs[2].offset = 176;
  run_roundtrip(plain, full_types(), "without etarm_meta");
  // Without etarm_meta an int32 entry takes an int32 argument as well, int8 a uint8 or bool.
  run_roundtrip(plain,
                {ScalarType::Byte, ScalarType::Int, ScalarType::Short, ScalarType::Bool, ScalarType::Int,
                 ScalarType::Short},
                "without etarm_meta, other integer types");
  Spec int32_io = full_spec();
  run_roundtrip(int32_io, {}, "int32 arguments for int32 entries");
  // Ethos-U85 direct drive: a COP2 stream, inputs in region 3 and outputs in region 4
  // (Vela --separate-io-regions), the fast scratch as before.
  Spec direct = full_spec();
  direct.cmd[3] = '2';
  direct.inputs[0].region = 3;
  direct.inputs[1].region = 3;
  direct.inputs[1].offset = 48;
  direct.outputs[0].region = 4;
  direct.outputs[1].region = 4;
  direct.outputs[1].offset = 64;
  run_roundtrip(direct, full_types(), "direct drive: COP2, I/O in regions 3 and 4");
}

// The rank-5 entry without etarm_meta: any shape folding to the same rank-4 shape binds.
TEST(EthosUPayload, FoldedShapes) {
  Spec plain = full_spec();
  plain.meta = false;
  plain.fast_scratch_size = 0;
  plain.inputs[2] = {{2, 1, 2, 3, 2}, 2, 112, 1};
  plain.outputs[2] = {{3}, 2, 176, 1};
  const std::vector<uint8_t> bytes = serialize(blocks_of(plain));
  RecordingDriver npu;
  set_driver(&npu);
  Instance instance;
  EXPECT_EQ(instance.init(bytes.data(), bytes.size()), Error::Ok);
  Spec as_rank4 = plain;
  as_rank4.inputs[2].shape = {2, 2, 3, 2};
  Args args = make_args(as_rank4, full_types());
  EXPECT_EQ(instance.execute(args.values), Error::Ok);
  as_rank4.inputs[2].shape = {4, 3, 2};  // folds to (1, 4, 3, 2): no
  Args wrong = make_args(as_rank4, full_types());
  EXPECT_EQ(instance.execute(wrong.values), Error::InvalidArgument);
  set_driver(nullptr);
}

// ---- corruptions rejected at init -----------------------------------------------------
struct Corruption {
  const char* name;
  std::function<std::vector<uint8_t>()> make;
  Error init_error;
  const char* reason;  // part of parse_payload's reason ("" when any reason will do)
};

std::vector<uint8_t> with_blocks(const std::function<void(std::vector<Block>&)>& edit) {
  std::vector<Block> blocks = blocks_of(full_spec());
  edit(blocks);
  return serialize(blocks);
}

std::vector<uint8_t> with_spec(const std::function<void(Spec&)>& edit) {
  Spec spec = full_spec();
  edit(spec);
  return serialize(blocks_of(spec));
}

std::vector<uint8_t> with_bytes(const std::function<void(std::vector<uint8_t>&)>& edit) {
  std::vector<uint8_t> bytes = serialize(blocks_of(full_spec()));
  edit(bytes);
  return bytes;
}

size_t block_index(const std::vector<Block>& blocks, const char* name) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].name == name) return i;
  }
  return blocks.size();
}

// Address of field `field` (0-3 shape, 4 elem_size, 5 offset, 6 region) of entry `index`
// of the inputs/outputs block.
uint8_t* io_field(std::vector<uint8_t>& bytes, const char* block, size_t index, size_t field) {
  return bytes.data() + block_offset(bytes, block) + 32 + 4 + index * 28 + field * 4;
}

// Byte `byte` of etarm_meta entry `index` (inputs then outputs): 0 dtype, 1 rank,
// 2 layout, 3 reserved, 4 + 4 * d shape[d].
uint8_t* meta_field(std::vector<uint8_t>& bytes, size_t index, size_t byte) {
  return bytes.data() + block_offset(bytes, "etarm_meta") + 32 + 16 + index * 28 + byte;
}

// ExecuTorch 1.5's Arm backend writes i32 shape[6] per entry, in Vela's view of the tensor:
// the argument is checked by its byte count, and its folded shape4 is what the view folds to.
std::vector<uint8_t> six_dim_io_block(const std::vector<Io>& ios) {
  std::vector<uint8_t> v;
  put_i32(v, static_cast<int32_t>(ios.size()));
  for (const Io& io : ios) {
    const size_t elements = io.nbytes() / dtype_bytes(io.dtype_code);
    const int32_t view[] = {1, 1, 1, 1, 1, static_cast<int32_t>(elements)};
    for (const int32_t d : view) {
      put_i32(v, d);
    }
    put_i32(v, static_cast<int32_t>(dtype_bytes(io.dtype_code)));
    put_i32(v, io.offset);
    put_i32(v, io.region);
  }
  return v;
}

TEST(EthosUPayload, SixDimensionEntries) {
  Spec plain = full_spec();
  plain.meta = false;
  plain.fast_scratch_size = 0;
  plain.inputs[2] = {{2, 1, 2, 3, 2}, 2, 112, 1};
  plain.outputs[2] = {{3}, 2, 176, 1};
  std::vector<Block> blocks = blocks_of(plain);
  blocks[block_index(blocks, "inputs")].data = six_dim_io_block(plain.inputs);
  blocks[block_index(blocks, "outputs")].data = six_dim_io_block(plain.outputs);
  const std::vector<uint8_t> bytes = serialize(blocks);
  Payload p;
  char why[200];
  ASSERT_EQ(parse_payload(bytes.data(), bytes.size(), &p, why, sizeof(why)), Error::Ok);
  EXPECT_EQ(p.io_shape_dims, kIoShapeDims6);
  const TensorEntry entry = tensor_entry(p, false, 0);
  EXPECT_TRUE(entry.shape_is_vela_view);
  EXPECT_EQ(entry.shape4[3], 48);
  EXPECT_EQ(entry.nbytes, 48u);
  EXPECT_EQ(entry.offset, 0u);
  RecordingDriver npu;
  set_driver(&npu);
  Instance instance;
  EXPECT_EQ(instance.init(bytes.data(), bytes.size()), Error::Ok);
  Args args = make_args(plain, full_types());
  EXPECT_EQ(instance.execute(args.values), Error::Ok);
  Spec fewer_bytes = plain;
  fewer_bytes.inputs[0].shape = {1, 3, 4, 3};
  Args wrong = make_args(fewer_bytes, full_types());
  EXPECT_EQ(instance.execute(wrong.values), Error::InvalidArgument);
  set_driver(nullptr);
  // Both blocks use one form.
  blocks[block_index(blocks, "outputs")].data = io_block(plain.outputs);
  const std::vector<uint8_t> mixed = serialize(blocks);
  EXPECT_EQ(parse_payload(mixed.data(), mixed.size(), &p, why, sizeof(why)), Error::InvalidProgram);
  EXPECT_TRUE(contains(why, "entries of 4 dims after entries of 6"));
}

std::vector<Corruption> corruptions() {
  const Error P = Error::InvalidProgram;
  return {
      // Framing: names, order, presence.
      {"bad magic (start block name)", [] { return with_blocks([](auto& b) { b[0].name = "vela_bin_strean"; }); }, P,
       "unknown block 'vela_bin_strean'"},
      {"no start block", [] { return with_blocks([](auto& b) { b.erase(b.begin()); }); }, P,
       "starts with block 'cmd_data'"},
      {"name of 16 characters (no NUL)", [] { return with_blocks([](auto& b) { b[1].name = "cmd_data_cmd_dat"; }); },
       P, "no valid name"},
      {"name with a control character", [] { return with_blocks([](auto& b) { b[2].name = "weight\x01" "data"; }); },
       P, "no valid name"},
      {"empty name", [] { return with_blocks([](auto& b) { b[3].name = ""; }); }, P, "no valid name"},
      {"garbage after the name's NUL",
       [] { return with_bytes([](auto& v) { v[block_offset(v, "inputs") + 10] = 'x'; }); }, P, "no valid name"},
      {"unknown block", [] { return with_blocks([](auto& b) { b.insert(b.end() - 1, Block{"extra", {1, 2, 3}}); }); },
       P, "unknown block 'extra'"},
      {"missing cmd_data", [] { return with_blocks([](auto& b) { b.erase(b.begin() + 1); }); }, P,
       "expected 'cmd_data' before it"},
      {"missing scratch_size", [] { return with_blocks([](auto& b) { b.erase(b.begin() + 3); }); }, P,
       "expected 'scratch_size' before it"},
      {"missing outputs",
       [] { return with_blocks([](auto& b) { b.erase(b.begin() + block_index(b, "outputs")); }); }, P,
       "expected 'outputs' before it"},
      {"blocks swapped", [] { return with_blocks([](auto& b) { std::swap(b[1], b[2]); }); }, P,
       "'weight_data' at byte 32: expected 'cmd_data'"},
      {"block after a later one",
       [] { return with_blocks([](auto& b) { b.insert(b.end() - 1, b[block_index(b, "outputs")]); }); }, P,
       "'outputs' at byte"},
      {"duplicate block", [] { return with_blocks([](auto& b) { b.insert(b.begin() + 3, b[2]); }); }, P,
       "appears twice"},
      {"no end block", [] { return with_blocks([](auto& b) { b.pop_back(); }); }, P, "without a 'vela_end_stream'"},
      {"non-empty start block", [] { return with_blocks([](auto& b) { b[0].data = {1}; }); }, P, "must be empty"},
      {"non-empty end block", [] { return with_blocks([](auto& b) { b.back().data = {0, 0, 0, 0}; }); }, P,
       "must be empty"},
      // Sizes, truncation, alignment.
      {"block size past the end",
       [] { return with_bytes([](auto& v) { set_u32(v.data() + block_offset(v, "cmd_data") + 16, 0x7fffffff); }); }, P,
       "claims 2147483647 bytes"},
      {"block size 0xffffffff",
       [] { return with_bytes([](auto& v) { set_u32(v.data() + block_offset(v, "weight_data") + 16, 0xffffffffu); }); },
       P, "claims 4294967295 bytes"},
      {"end block size past the end",
       [] { return with_bytes([](auto& v) { set_u32(v.data() + v.size() - 16, 1); }); }, P, "claims 1 bytes"},
      {"block swallowing the end block",
       [] {
         return with_bytes([](auto& v) {
           const size_t meta = block_offset(v, "etarm_meta");
           set_u32(v.data() + meta + 16, static_cast<uint32_t>(v.size() - meta - 32 - 1));
         });
       },
       P, "without a 'vela_end_stream'"},
      {"block size off by 16 (headers misread)",
       [] {
         return with_bytes([](auto& v) {
           uint8_t* size = v.data() + block_offset(v, "cmd_data") + 16;
           set_u32(size, get_u32(size) + 16);
         });
       },
       P, "unknown block"},
      {"block size off by one",
       [] {
         return with_bytes([](auto& v) {
           uint8_t* size = v.data() + block_offset(v, "cmd_data") + 16;
           set_u32(size, get_u32(size) + 1);
         });
       },
       P, "COP1"},
      {"truncated in the end header", [] { return with_bytes([](auto& v) { v.resize(v.size() - 16); }); }, P,
       "truncated block header"},
      {"truncated before the end block", [] { return with_bytes([](auto& v) { v.resize(v.size() - 32); }); }, P,
       "without a 'vela_end_stream'"},
      {"truncated in a block",
       [] { return with_bytes([](auto& v) { v.resize(block_offset(v, "weight_data") + 48); }); }, P, "claims 45"},
      {"empty payload", [] { return std::vector<uint8_t>(); }, P, "without a 'vela_end_stream'"},
      {"length not a multiple of 16", [] { return with_bytes([](auto& v) { v.push_back(0); }); }, P,
       "not a multiple of 16"},
      {"bytes after the end block", [] { return with_bytes([](auto& v) { v.insert(v.end(), 32, 0); }); }, P,
       "follow the 'vela_end_stream'"},
      // Block contents.
      {"command stream without COP1", [] { return with_spec([](Spec& s) { s.cmd[0] = 'X'; }); }, P, "COP1"},
      {"command stream not whole words", [] { return with_spec([](Spec& s) { s.cmd.push_back(0); }); }, P, "COP1"},
      {"command stream too short", [] { return with_spec([](Spec& s) { s.cmd.resize(4); }); }, P, "COP1"},
      {"scratch_size of 8 bytes",
       [] { return with_blocks([](auto& b) { b[3].data.insert(b[3].data.end(), 4, 0); }); }, P, "not 4"},
      {"negative input count", [] { return with_bytes([](auto& v) { set_u32(io_field(v, "inputs", 0, 0) - 4, 0xffffffffu); }); },
       P, "count -1"},
      {"huge output count",
       [] { return with_bytes([](auto& v) { set_u32(io_field(v, "outputs", 0, 0) - 4, 0x7fffffff); }); }, P,
       "count 2147483647"},
      {"count disagrees with the block size",
       [] { return with_bytes([](auto& v) { set_u32(io_field(v, "inputs", 0, 0) - 4, 2); }); }, P,
       "does not hold 2 entries"},
      {"inputs block without a count", [] { return with_blocks([](auto& b) { b[4].data.resize(2); }); }, P,
       "has no count"},
      {"no outputs", [] { return with_spec([](Spec& s) { s.outputs.clear(); }); }, P, "no outputs"},
      // I/O entries.
      {"element size 3", [] { return with_bytes([](auto& v) { set_u32(io_field(v, "inputs", 0, 4), 3); }); }, P,
       "element size 3"},
      {"element size 0", [] { return with_bytes([](auto& v) { set_u32(io_field(v, "outputs", 1, 4), 0); }); }, P,
       "element size 0"},
      {"region 0 (read-only weights)", [] { return with_spec([](Spec& s) { s.inputs[0].region = 0; }); }, P,
       "region 0"},
      {"region 7", [] { return with_spec([](Spec& s) { s.outputs[0].region = 7; }); }, P, "region 7"},
      {"region 5", [] { return with_spec([](Spec& s) { s.inputs[0].region = 5; }); }, P, "region 5"},
      {"direct-drive region past 2^31",
       [] {
         return with_spec([](Spec& s) {
           s.outputs[1].region = 4;
           s.outputs[1].offset = 0x7FFFFFF0;
         });
       },
       P, "outside region 4"},
      {"region -1", [] { return with_spec([](Spec& s) { s.inputs[1].region = -1; }); }, P, "region -1"},
      {"negative offset", [] { return with_spec([](Spec& s) { s.inputs[0].offset = -16; }); }, P,
       "negative offset -16"},
      {"offset at the end of the region", [] { return with_spec([](Spec& s) { s.inputs[0].offset = 256; }); }, P,
       "outside region 1 of 256 bytes"},
      {"tensor past the end of the region", [] { return with_spec([](Spec& s) { s.inputs[1].offset = 256 - 39; }); },
       P, "outside region 1"},
      {"offset near INT32_MAX", [] { return with_spec([](Spec& s) { s.outputs[1].offset = 0x7ffffff0; }); }, P,
       "outside region 1"},
      {"fast scratch region without fast scratch", [] { return with_spec([](Spec& s) { s.fast_scratch_size = 0; }); },
       P, "outside region 2 of 0 bytes"},
      {"region 2 in a payload without etarm_meta", [] { return with_spec([](Spec& s) { s.meta = false; }); }, P,
       "outside region 2 of 0 bytes"},
      {"scratch_size too small for the outputs", [] { return with_spec([](Spec& s) { s.scratch_size = 150; }); }, P,
       "outside region 1 of 150 bytes"},
      {"zero dimension", [] { return with_spec([](Spec& s) { s.inputs[0].shape = {1, 0, 4, 4}; }); }, P,
       "shape dimension 1 is 0"},
      {"negative dimension", [] { return with_bytes([](auto& v) { set_u32(io_field(v, "outputs", 2, 0), 0xfffffffeu); }); },
       P, "shape dimension 0 is -2"},
      {"shape overflowing 32 bits",
       [] {
         return with_bytes([](auto& v) {
           set_u32(io_field(v, "inputs", 0, 0), 0x10000);
           set_u32(io_field(v, "inputs", 0, 1), 0x10000);
         });
       },
       P, "shape too large"},
      // etarm_meta.
      {"etarm_meta version 2", [] { return with_bytes([](auto& v) { set_u32(meta_field(v, 0, 0) - 16, 2); }); }, P,
       "version 2"},
      {"etarm_meta counts disagree", [] { return with_bytes([](auto& v) { set_u32(meta_field(v, 0, 0) - 8, 2); }); },
       P, "counts 2 inputs"},
      {"etarm_meta too short",
       [] { return with_blocks([](auto& b) { b[block_index(b, "etarm_meta")].data.resize(12); }); }, P, "too short"},
      {"etarm_meta size wrong",
       [] {
         return with_blocks([](auto& b) {
           auto& d = b[block_index(b, "etarm_meta")].data;
           d.insert(d.end(), 4, 0);
         });
       },
       P, "not 184"},
      {"etarm_meta dtype code 7", [] { return with_bytes([](auto& v) { *meta_field(v, 1, 0) = 7; }); }, P,
       "unknown dtype code 7"},
      {"etarm_meta dtype disagrees with the element size", [] { return with_bytes([](auto& v) { *meta_field(v, 0, 0) = 2; }); },
       P, "does not have element size 1"},
      {"etarm_meta rank 7", [] { return with_bytes([](auto& v) { *meta_field(v, 3, 1) = 7; }); }, P, "rank 7"},
      {"etarm_meta layout 1", [] { return with_bytes([](auto& v) { *meta_field(v, 4, 2) = 1; }); }, P, "layout 1"},
      {"etarm_meta shape disagrees",
       [] {
         return with_bytes([](auto& v) {  // input 1 is [2, 5]: make it [5, 2]
           set_u32(meta_field(v, 1, 4), 5);
           set_u32(meta_field(v, 1, 8), 2);
         });
       },
       P, "does not match"},
      {"etarm_meta unused dimension set", [] { return with_bytes([](auto& v) { set_u32(meta_field(v, 1, 4 + 8), 3); }); },
       P, "dimension 2 is 3"},
      {"etarm_meta negative dimension",
       [] { return with_bytes([](auto& v) { set_u32(meta_field(v, 5, 4), 0xffffffffu); }); }, P,
       "dimension 0 is -1"},
      // Parse fine, but the arena cannot exist.
      {"scratch overflow (4 GiB arena)", [] { return with_spec([](Spec& s) { s.scratch_size = 0xfffffff0u; }); },
       Error::MemoryAllocationFailed, nullptr},
      {"fast scratch overflow", [] { return with_spec([](Spec& s) { s.fast_scratch_size = 0x80000000u; }); },
       Error::MemoryAllocationFailed, nullptr},
  };
}

TEST(EthosUPayload, Corruptions) {
  // The unmodified payload is accepted: every case below differs from it in one way.
  {
    const std::vector<uint8_t> bytes = serialize(blocks_of(full_spec()));
    Payload p;
    char why[200];
    EXPECT_EQ(parse_payload(bytes.data(), bytes.size(), &p, why, sizeof(why)), Error::Ok);
  }
  for (const Corruption& c : corruptions()) {
    const std::vector<uint8_t> bytes = c.make();
    auto data = exact_copy(bytes);
    Payload p;
    char why[200];
    SCOPED_TRACE("corruption '%s'", c.name);
    const Error parsed = parse_payload(data.get(), bytes.size(), &p, why, sizeof(why));
    EXPECT_EQ(parsed, c.reason == nullptr ? Error::Ok : Error::InvalidProgram);
    if (c.reason != nullptr && !contains(why, c.reason)) {
      ADD_FAILURE("the reason '%s' lacks '%s'", why, c.reason);
    }
    Instance instance;
    EXPECT_EQ(instance.init(data.get(), bytes.size()), c.init_error);
    EXPECT_EQ(instance.handle(), nullptr);
  }
}

// A payload the loader did not align is copied; the NPU still sees aligned addresses.
TEST(EthosUPayload, MisalignedPayload) {
  const std::vector<uint8_t> bytes = serialize(blocks_of(full_spec()));
  std::vector<uint8_t> storage(bytes.size() + 32);
  uint8_t* base = storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16 + 4;
  std::memcpy(base, bytes.data(), bytes.size());
  RecordingDriver npu;
  set_driver(&npu);
  Instance instance;
  EXPECT_EQ(instance.init(base, bytes.size()), Error::Ok);
  const HandleInfo info = instance.info();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(info.payload.cmd_data) % 16, 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(info.regions[0].address) % 16, 0u);
  EXPECT_NE(info.regions[0].address, base + block_offset(bytes, "weight_data") + 32);
  Args args = make_args(full_spec(), full_types());
  EXPECT_EQ(instance.execute(args.values), Error::Ok);
  EXPECT_TRUE(npu.invocations().size() == 1 && npu.invocations()[0].regions[0].bytes == full_spec().weights);
  set_driver(nullptr);
}

// ---- execute: binding errors, the driver hook -------------------------------------------
TEST(EthosUPayload, ExecuteErrors) {
  const Spec spec = full_spec();
  const std::vector<uint8_t> bytes = serialize(blocks_of(spec));
  Instance instance;
  EXPECT_EQ(instance.init(bytes.data(), bytes.size()), Error::Ok);
  Args good = make_args(spec, full_types());

  // No driver installed.
  EXPECT_EQ(driver(), nullptr);
  EXPECT_EQ(instance.execute(good.values), Error::NotSupported);

  RecordingDriver npu;
  set_driver(&npu);
  EXPECT_EQ(instance.execute(good.values), Error::Ok);

  struct Case {
    const char* name;
    std::function<Error()> run;
    Error expected;
  };
  // Executes with arguments made for `s` and `types`, which the payload does not expect.
  auto mismatched = [&instance](const Spec& s, const std::vector<ScalarType>& types) {
    return [&instance, s, types] {
      Args a = make_args(s, types);
      return instance.execute(a.values);
    };
  };
  // The payload's dtypes, with `type` at `index`.
  auto retyped = [](size_t index, ScalarType type) {
    std::vector<ScalarType> t = full_types();
    t[index] = type;
    return t;
  };
  // The payload's spec, with shapes changed by `edit`.
  auto reshaped = [&spec](const std::function<void(Spec&)>& edit) {
    Spec s = spec;
    edit(s);
    return s;
  };
  const std::vector<Case> cases = {
      {"one argument too few",
       [&] {
         std::vector<EValue*> v(good.values.begin(), good.values.end() - 1);
         return instance.execute(v);
       },
       Error::InvalidArgument},
      {"one argument too many",
       [&] {
         std::vector<EValue*> v = good.values;
         v.push_back(good.values[0]);
         return instance.execute(v);
       },
       Error::InvalidArgument},
      {"no arguments", [&] { return instance.execute({}); }, Error::InvalidArgument},
      {"float input", mismatched(spec, retyped(0, ScalarType::Float)), Error::InvalidArgument},
      {"uint8 input for an int8 entry", mismatched(spec, retyped(0, ScalarType::Byte)), Error::InvalidArgument},
      {"int64 input for an int8 entry", mismatched(spec, retyped(0, ScalarType::Long)), Error::InvalidArgument},
      {"int16 output for an int8 entry", mismatched(spec, retyped(3, ScalarType::Short)), Error::InvalidArgument},
      {"same bytes, other shape", mismatched(reshaped([](Spec& s) { s.inputs[0].shape = {1, 3, 16}; }), full_types()),
       Error::InvalidArgument},
      {"output too large", mismatched(reshaped([](Spec& s) { s.outputs[0].shape = {1, 3, 4, 5}; }), full_types()),
       Error::InvalidArgument},
      {"rank-5 input given as rank 4", mismatched(reshaped([](Spec& s) { s.inputs[2].shape = {2, 2, 3, 2}; }), full_types()),
       Error::InvalidArgument},
      {"channels-last input",
       [&] {
         Args a = make_args(spec, full_types());
         OwnedTensor cl(ScalarType::Char, spec.inputs[0].shape, true);
         a.values[0] = cl.value();
         return instance.execute(a.values);
       },
       Error::NotSupported},
      {"an int where a tensor belongs",
       [&] {
         Args a = make_args(spec, full_types());
         EValue scalar(static_cast<int64_t>(3));
         a.values[1] = &scalar;
         return instance.execute(a.values);
       },
       Error::InvalidArgument},
      {"a null argument",
       [&] {
         Args a = make_args(spec, full_types());
         a.values[4] = nullptr;
         return instance.execute(a.values);
       },
       Error::InvalidArgument},
      {"int64 input above INT32_MAX",
       [&] {
         Args a = make_args(spec, full_types());
         const int64_t big = int64_t{1} << 31;
         std::memcpy(a.tensors[1]->bytes() + 8 * 3, &big, 8);
         return instance.execute(a.values);
       },
       Error::InvalidArgument},
      {"int64 input below INT32_MIN",
       [&] {
         Args a = make_args(spec, full_types());
         const int64_t small = -(int64_t{1} << 40);
         std::memcpy(a.tensors[1]->bytes() + 8 * 9, &small, 8);
         return instance.execute(a.values);
       },
       Error::InvalidArgument},
  };
  const size_t before = npu.invocations().size();
  for (const Case& c : cases) {
    SCOPED_TRACE("execute: %s", c.name);
    EXPECT_EQ(c.run(), c.expected);
  }
  // None of them reached the NPU.
  EXPECT_EQ(npu.invocations().size(), before);

  // A driver failure is passed on, and the outputs are left alone.
  Args a = make_args(spec, full_types());
  std::memset(a.tensors[3]->bytes(), 0x5a, a.tensors[3]->nbytes());
  npu.fail_with(Error::Internal);
  EXPECT_EQ(instance.execute(a.values), Error::Internal);
  EXPECT_EQ(npu.invocations().size(), before + 1);
  EXPECT_EQ(a.tensors[3]->bytes()[0], 0x5a);
  npu.fail_with(Error::Ok);
  EXPECT_EQ(instance.execute(a.values), Error::Ok);
  EXPECT_EQ(set_driver(nullptr), &npu);
}

// ---- the arena hook -----------------------------------------------------------------------
TEST(EthosUPayload, ArenaProvider) {
  const Spec spec = full_spec();
  const std::vector<uint8_t> bytes = serialize(blocks_of(spec));
  alignas(16) static uint8_t scratch[512];
  alignas(16) static uint8_t fast[64];
  RecordingDriver npu;
  set_driver(&npu);
  {
    StaticArenaProvider provider(scratch, sizeof(scratch), fast, sizeof(fast));
    set_arena_provider(&provider);
    Instance a;
    Instance b;
    EXPECT_EQ(a.init(bytes.data(), bytes.size()), Error::Ok);
    EXPECT_EQ(b.init(bytes.data(), bytes.size()), Error::Ok);
    EXPECT_TRUE(a.info().regions[1].address == scratch && b.info().regions[1].address == scratch);
    EXPECT_EQ(a.info().regions[2].address, fast);
    Args args = make_args(spec, full_types());
    EXPECT_EQ(a.execute(args.values), Error::Ok);
    EXPECT_EQ(b.execute(args.values), Error::Ok);
    EXPECT_TRUE(npu.invocations().size() == 2 && npu.invocations()[1].regions[2].address == fast);
  }
  {
    StaticArenaProvider provider(scratch, 128);  // smaller than scratch_size 256
    set_arena_provider(&provider);
    Instance a;
    EXPECT_EQ(a.init(bytes.data(), bytes.size()), Error::MemoryAllocationFailed);
  }
  {
    StaticArenaProvider provider(scratch + 4, sizeof(scratch) - 4);  // misaligned
    set_arena_provider(&provider);
    Instance a;
    EXPECT_EQ(a.init(bytes.data(), bytes.size()), Error::MemoryAllocationFailed);
  }
  {
    StaticArenaProvider provider(nullptr, 0, fast, sizeof(fast));  // scratch from the allocator
    set_arena_provider(&provider);
    Instance a;
    EXPECT_EQ(a.init(bytes.data(), bytes.size()), Error::Ok);
    EXPECT_TRUE(a.info().regions[1].address != nullptr && a.info().regions[1].address != scratch);
    EXPECT_EQ(a.info().regions[2].address, fast);
  }
  EXPECT_NE(set_arena_provider(nullptr), nullptr);
  {
    Instance small(512);  // the runtime allocator cannot hold the 256-byte arena and the rest
    EXPECT_EQ(small.init(bytes.data(), bytes.size()), Error::MemoryAllocationFailed);
  }
  set_driver(nullptr);
}

}  // namespace
}  // namespace test
}  // namespace ethosu
}  // namespace etarm
