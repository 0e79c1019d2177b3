// Bad payloads: parse_vgf() and VgfBackend::init() must return an error, never crash or
// read outside the payload (payload_asan_test runs this under ASan/UBSan). Real payloads
// truncated at every length, their magic and header fields garbled, every byte flipped;
// and payloads built with the VGF library's encoder that are well-formed but inconsistent,
// each with the expected error.
#include <sstream>

#include <executorch/runtime/backend/interface.h>

#include "runtime/executorch_names.h"
#include "runtime/testing/executorch.h"
#include "runtime/vgf/test/test_cases.h"
#include "runtime/vgf/vgf_backend.h"
#include "vgf/decoder.hpp"
#include "vgf/encoder.hpp"

namespace etarm {
namespace vgf {
namespace test {
namespace {

namespace vgflib = mlsdk::vgflib;

constexpr int32_t kR8Sint = 14;
constexpr int32_t kR32Sfloat = 100;
constexpr int32_t kR8G8B8A8Unorm = 37;
constexpr int32_t kTensorDescriptor = 1000460000;  // VK_DESCRIPTOR_TYPE_TENSOR_ARM

Error parse(const std::vector<uint8_t>& bytes, std::string* why = nullptr) {
  Payload payload(bytes);
  VgfModel model;
  std::string reason;
  return parse_vgf(payload.data(), payload.size(), &model, why != nullptr ? why : &reason);
}

Error init_backend(const uint8_t* data, size_t size) {
  std::vector<uint8_t> pool(1024);
  MemoryAllocator allocator(pool.size(), pool.data());
  FreeableBuffer buffer(data, size, nullptr);
  BackendInitContext context(&allocator);
  BackendInterface* backend = executorch::runtime::get_backend_class(kBackendId);
  auto result = backend->init(context, &buffer, {});
  if (result.ok()) {
    backend->destroy(result.get());
    return Error::Ok;
  }
  return result.error();
}

uint64_t get_u64(const std::vector<uint8_t>& v, size_t at) {
  uint64_t x;
  std::memcpy(&x, v.data() + at, 8);
  return x;
}

void set_u64(std::vector<uint8_t>& v, size_t at, uint64_t x) {
  std::memcpy(v.data() + at, &x, 8);
}

// ---- real payloads ----------------------------------------------------------------------

TEST(RealPayload, ParsesEveryCase) {
  for (const Case& c : cases_from_args()) {
    SCOPED_TRACE("case %s", c.name.c_str());
    Payload payload(c.vgf);
    VgfModel model;
    std::string why;
    ASSERT_EQ(parse_vgf(payload.data(), payload.size(), &model, &why), Error::Ok);
    EXPECT_EQ(model.inputs.size(), c.inputs.size());
    EXPECT_EQ(model.outputs.size(), c.expected.size());
    EXPECT_EQ(model.segments.size(), 1u);
    for (size_t i = 0; i < c.inputs.size() && i < model.inputs.size(); ++i) {
      EXPECT_TRUE(c.inputs[i].fits(model.resources[model.inputs[i].resource].shape));
    }
  }
}

TEST(RealPayload, TruncatedAtEveryLengthIsAnError) {
  for (const Case& c : cases_from_args()) {
    SCOPED_TRACE("case %s", c.name.c_str());
    size_t accepted = 0;
    for (size_t length = 0; length < c.vgf.size(); ++length) {
      const std::vector<uint8_t> cut(c.vgf.begin(), c.vgf.begin() + static_cast<ptrdiff_t>(length));
      accepted += parse(cut) == Error::Ok;
    }
    EXPECT_EQ(accepted, 0u);
    // Through the backend: one length per bucket (powers of two, the header's end, the end).
    std::vector<size_t> lengths = {0, 1, 3, 4, vgflib::HeaderSize() - 1, vgflib::HeaderSize(), c.vgf.size() - 1};
    for (size_t length = 8; length < c.vgf.size(); length *= 2) {
      lengths.push_back(length);
    }
    for (size_t length : lengths) {
      SCOPED_TRACE("%zu bytes", length);
      Payload cut(c.vgf.data(), length);
      EXPECT_EQ(init_backend(cut.data(), cut.size()), Error::InvalidProgram);
    }
  }
}

TEST(RealPayload, WrongMagicIsAnError) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  for (size_t k = 0; k < 4; ++k) {
    std::vector<uint8_t> bytes = cases[0].vgf;
    bytes[k] ^= 0x20;
    std::string why;
    EXPECT_EQ(parse(bytes, &why), Error::InvalidProgram);
    EXPECT_TRUE(why.find("magic") != std::string::npos);
    Payload payload(bytes);
    EXPECT_EQ(init_backend(payload.data(), payload.size()), Error::InvalidProgram);
  }
}

TEST(RealPayload, MisalignedPointerIsRefusedByTheReader) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  Payload payload(cases[0].vgf, 4);
  VgfModel model;
  std::string why;
  EXPECT_EQ(parse_vgf(payload.data(), payload.size(), &model, &why), Error::InvalidArgument);
}

// The section table (offset and size of the module table, model sequence table, resource
// table and constants: 64-bit fields from byte 16) garbled: a section reaching outside the
// payload, wrapping around or overlapping the header is an error; the header's remaining
// (reserved) fields take any value.
TEST(RealPayload, GarbledHeaderFieldsAreErrors) {
  constexpr size_t kSectionTable = 16;
  constexpr size_t kSections = 4;
  for (const Case& c : cases_from_args()) {
    SCOPED_TRACE("case %s", c.name.c_str());
    const uint64_t size = c.vgf.size();
    for (size_t at = kSectionTable; at + 8 <= vgflib::HeaderSize(); at += 8) {
      const uint64_t original = get_u64(c.vgf, at);
      for (uint64_t value : {uint64_t{0}, uint64_t{8}, size, size + 8, size - 1, original + 1, original + size,
                             ~uint64_t{0}, ~uint64_t{0} - 7, uint64_t{1} << 63}) {
        SCOPED_TRACE("field at %zu = %llu", at, static_cast<unsigned long long>(value));
        std::vector<uint8_t> bytes = c.vgf;
        set_u64(bytes, at, value);
        const Error err = parse(bytes);
        if (at >= kSectionTable + 16 * kSections) {
          continue;  // reserved: any result but a crash
        }
        const size_t field = (at - kSectionTable) / 8;
        const uint64_t offset = field % 2 == 0 ? value : get_u64(bytes, at - 8);
        const uint64_t length = field % 2 == 0 ? get_u64(bytes, at + 8) : value;
        if (offset < vgflib::HeaderSize() || offset > size || length > size - offset || offset % 8 != 0) {
          EXPECT_EQ(err, Error::InvalidProgram);
        }
      }
    }
  }
}

// Every byte of each payload inverted, one at a time: any result but a crash.
TEST(RealPayload, EveryByteInvertedParsesOrFails) {
  for (const Case& c : cases_from_args()) {
    size_t accepted = 0;
    for (size_t at = 0; at < c.vgf.size(); ++at) {
      std::vector<uint8_t> bytes = c.vgf;
      bytes[at] ^= 0xff;
      accepted += parse(bytes) == Error::Ok;
    }
    std::printf("%-22s %5zu bytes inverted one at a time: %zu accepted (constant data, names, code)\n",
                c.name.c_str(), c.vgf.size(), accepted);
  }
}

// ---- payloads from the VGF library's encoder --------------------------------------------

// A one-segment graph: input [1, 4] -> output [1, 4] with one int8 constant [4]; each
// field can be made wrong.
struct Synthetic {
  vgflib::ModuleType module_type = vgflib::ModuleType::GRAPH;
  // A SPIR-V header (magic, version 1.6, generator, id bound, schema) and nothing else.
  std::vector<uint32_t> code = {0x07230203, 0x00010600, 0, 8, 0};
  int32_t format = kR32Sfloat;
  std::vector<int64_t> shape = {1, 4};
  std::vector<int64_t> strides;
  size_t constant_bytes = 4;
  uint32_t input_resource = 0;  // the model sequence input's resource
  uint32_t constant_resource = 2;
  uint32_t constant_index = 0;  // what the segment's graph constant names
  uint32_t output_binding = 1;
  uint32_t descriptor_set = 0;
  bool outputs = true;
};

std::vector<uint8_t> encode(const Synthetic& s) {
  auto encoder = vgflib::CreateEncoder(363);
  const vgflib::ModuleRef module = encoder->AddModule(s.module_type, "graph", "main", s.code);
  const vgflib::ResourceRef input = encoder->AddInputResource(kTensorDescriptor, s.format, s.shape, s.strides);
  const vgflib::ResourceRef output = encoder->AddOutputResource(kTensorDescriptor, kR32Sfloat, {1, 4}, {});
  encoder->AddConstantResource(kR8Sint, {4}, {});
  const std::vector<uint8_t> data(s.constant_bytes, 7);
  const vgflib::ConstantRef constant = encoder->AddConstant({s.constant_resource}, data.data(), data.size());
  const vgflib::BindingSlotRef in_slot = encoder->AddBindingSlot(0, {s.input_resource});
  const vgflib::BindingSlotRef out_slot = encoder->AddBindingSlot(s.output_binding, output);
  const vgflib::DescriptorSetInfoRef set = encoder->AddDescriptorSetInfo({in_slot, out_slot}, s.descriptor_set);
  (void)input;
  (void)constant;
  encoder->AddSegmentInfo(module, "segment", {set}, {in_slot}, {out_slot},
                          {vgflib::GraphConstantBindingRef(0, vgflib::ConstantRef{s.constant_index})});
  if (s.outputs) {
    encoder->AddModelSequenceInputsOutputs({in_slot}, {"input_0"}, {out_slot}, {"output_0"});
  } else {
    encoder->AddModelSequenceInputsOutputs({in_slot}, {"input_0"}, {}, {});
  }
  encoder->Finish();
  std::ostringstream out;
  encoder->WriteTo(out);
  const std::string bytes = out.str();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

TEST(Synthetic, TheBaselineDecodes) {
  const std::vector<uint8_t> bytes = encode(Synthetic{});
  Payload payload(bytes);
  VgfModel model;
  std::string why;
  ASSERT_EQ(parse_vgf(payload.data(), payload.size(), &model, &why), Error::Ok);
  ASSERT_EQ(model.resources.size(), 3u);
  EXPECT_EQ(model.resources[0].category, Category::kInput);
  EXPECT_EQ(model.resources[0].nbytes, 16u);
  EXPECT_EQ(model.resources[2].category, Category::kConstant);
  EXPECT_FALSE(model.resources[2].bindable);
  ASSERT_EQ(model.constants.size(), 1u);
  EXPECT_EQ(model.constants[0].data[3], 7);
  ASSERT_EQ(model.segments.size(), 1u);
  EXPECT_EQ(model.modules[model.segments[0].module].entry_point, std::string("main"));
  ASSERT_EQ(model.segments[0].descriptor_sets.size(), 1u);
  EXPECT_EQ(model.segments[0].descriptor_sets[0].bindings.size(), 2u);
  ASSERT_EQ(model.segments[0].constants.size(), 1u);
  ASSERT_EQ(model.inputs.size(), 1u);
  ASSERT_EQ(model.outputs.size(), 1u);
  EXPECT_EQ(model.outputs[0].resource, 1u);
}

TEST(Synthetic, InconsistentModelsAreRefusedWithTheirReason) {
  struct Corruption {
    const char* what;
    Synthetic synthetic;
    Error error;
    const char* reason;  // a part of *why
  };
  const auto with = [](auto change) {
    Synthetic s;
    change(s);
    return s;
  };
  const Corruption corruptions[] = {
      {"compute segment", with([](Synthetic& s) { s.module_type = vgflib::ModuleType::COMPUTE; }),
       Error::NotSupported, "compute shader"},
      {"unknown format", with([](Synthetic& s) { s.format = kR8G8B8A8Unorm; }), Error::NotSupported, "format"},
      {"unshaped dimension", with([](Synthetic& s) { s.shape = {1, -1}; }), Error::NotSupported, "unshaped"},
      {"zero dimension", with([](Synthetic& s) { s.shape = {1, 0}; }), Error::InvalidProgram, "dimension 1"},
      {"rank 9", with([](Synthetic& s) { s.shape = std::vector<int64_t>(9, 1); }), Error::InvalidProgram, "rank 9"},
      {"rank 0", with([](Synthetic& s) { s.shape = {}; }), Error::NotSupported, "rank 0"},
      {"2^40 elements", with([](Synthetic& s) { s.shape = {1 << 20, 1 << 20}; }), Error::InvalidProgram, "2^32"},
      {"strided", with([](Synthetic& s) { s.strides = {32, 8}; }), Error::NotSupported, "strides"},
      {"constant too short", with([](Synthetic& s) { s.constant_bytes = 3; }), Error::InvalidProgram, "3 bytes"},
      {"constant of an input", with([](Synthetic& s) { s.constant_resource = 0; }), Error::InvalidProgram,
       "not a constant"},
      {"constant of no resource", with([](Synthetic& s) { s.constant_resource = 77; }), Error::InvalidProgram,
       "resource 77"},
      {"graph constant of no constant", with([](Synthetic& s) { s.constant_index = 5; }), Error::InvalidProgram,
       "names constant 5"},
      {"input names no resource", with([](Synthetic& s) { s.input_resource = 99; }), Error::InvalidProgram,
       "resource 99"},
      {"input is the constant", with([](Synthetic& s) { s.input_resource = 2; }), Error::InvalidProgram,
       "cannot be bound"},
      {"input is the output", with([](Synthetic& s) { s.input_resource = 1; }), Error::InvalidProgram, "an output"},
      {"binding twice", with([](Synthetic& s) { s.output_binding = 0; }), Error::InvalidProgram, "twice"},
      {"descriptor set 40", with([](Synthetic& s) { s.descriptor_set = 40; }), Error::InvalidProgram, "set 40"},
      {"no outputs", with([](Synthetic& s) { s.outputs = false; }), Error::InvalidProgram, "no outputs"},
      {"SPIR-V without magic", with([](Synthetic& s) { s.code[0] = 0x03022307; }), Error::InvalidProgram,
       "no SPIR-V header"},
      {"SPIR-V instruction past the end", with([](Synthetic& s) { s.code.push_back(0x00050011); }),
       Error::InvalidProgram, "word count 5"},
      {"SPIR-V instruction of no words", with([](Synthetic& s) { s.code.push_back(0x00000011); }),
       Error::InvalidProgram, "word count 0"},
  };
  for (const Corruption& c : corruptions) {
    SCOPED_TRACE("%s", c.what);
    std::string why;
    EXPECT_EQ(parse(encode(c.synthetic), &why), c.error);
    EXPECT_TRUE(why.find(c.reason) != std::string::npos);
    std::printf("%-30s %s\n", c.what, why.c_str());
  }
}

}  // namespace
}  // namespace test
}  // namespace vgf
}  // namespace etarm
