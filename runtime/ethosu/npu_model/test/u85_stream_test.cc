// Real Ethos-U85 command streams (models compiled by etarm and Vela for ethos-u85-*, see
// make_case.py) read with the U85 command set: the header's CONFIG word names the target
// the case was compiled for, every command word is one the command set defines, and the
// stream runs to a result (64-bit OFMs and kept accumulators included). Prints how often each
// command occurs (a dump of what Vela writes for U85).
//
// Arguments: CASE files compiled for an ethos-u85-* target.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/isa_u85.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
#include "runtime/ethosu/npu_model/test/stream_builder.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

std::map<std::string, size_t> g_occurrences;

void check_stream(const std::string& name, const std::string& target, const PartitionCase& pc) {
  SCOPED_TRACE("%s", name.c_str());
  PayloadBlocks blocks;
  ASSERT_TRUE(payload_blocks(pc.payload, &blocks));
  DriverPayload header;
  const Status parsed = parse_driver_payload(blocks.cmd_data.data(), blocks.cmd_data.size(), &header);
  ASSERT_TRUE(parsed.ok());
  ASSERT_TRUE(header.has_config);
  const Accelerator* accelerator = accelerator_for_config(header.config);
  ASSERT_TRUE(accelerator != nullptr);
  EXPECT_STREQ(accelerator->name, target.c_str());
  EXPECT_EQ(accelerator->product, Product::kEthosU85);

  CommandReader reader(blocks.cmd_data.data(), header.commands_begin, header.commands_end, CommandSet::kEthosU85);
  size_t commands = 0;
  bool stopped = false;
  while (!reader.done()) {
    Command c;
    const Status s = reader.next(&c);
    if (!s.ok()) {
      ADD_FAILURE("%s: %s", name.c_str(), s.message());
      return;
    }
    ++commands;
    ++g_occurrences[c.name()];
    stopped = !c.is_long && c.opcode == 0;
  }
  EXPECT_TRUE(stopped);  // the last command is NPU_OP_STOP

  // The stream on the model, against a zeroed scratch area.
  const Status ran = run_on_zeroed_scratch(target.c_str(), blocks.cmd_data, blocks);
  if (!ran.ok()) ADD_FAILURE("%s: %s", name.c_str(), ran.message());
  std::printf("%-28s %s: %zu commands, %s\n", name.c_str(), target.c_str(), commands,
              ran.ok() ? "runs" : ran.message());
}

TEST(EthosU85, EveryCommandOfVelasStreamsIsKnown) {
  ASSERT_GT(etarm::testing::arg_count(), 0);
  for (int a = 0; a < etarm::testing::arg_count(); ++a) {
    const char* path = etarm::testing::arg(a);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(etarm::testing::read_file(path, &bytes));
    Case c;
    CaseReader reader(bytes);
    ASSERT_TRUE(reader.read(&c));
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      check_stream(case_name(path) + " p" + std::to_string(p), c.target, c.partitions[p]);
    }
  }
  std::printf("commands in these streams:\n");
  for (const auto& kv : g_occurrences) {
    std::printf("  %-30s %zu\n", kv.first.c_str(), kv.second);
  }
}

// The U85 configurations are recognised by the CONFIG word Vela writes (ethos_u85.cpp:
// log2 MACs, command-stream version 1, AXI ports, weight decoders, product 2).
TEST(EthosU85, ConfigWords) {
  const struct {
    const char* name;
    uint32_t config;
  } kWords[] = {
      {"ethos-u85-128", 0x20000117},  {"ethos-u85-256", 0x20000118},  {"ethos-u85-512", 0x20001119},
      {"ethos-u85-1024", 0x2000251A}, {"ethos-u85-2048", 0x2000261B},
  };
  for (const auto& w : kWords) {
    const Accelerator* a = accelerator_for_config(w.config);
    ASSERT_TRUE(a != nullptr);
    EXPECT_STREQ(a->name, w.name);
    EXPECT_EQ(find_accelerator(w.name), a);
  }
}

// ---- hand-made streams: kept accumulators ------------------------------------------------
// U85 command words (isa_u85.h): a short command's parameter in bits 16..31; a long command's
// first word carries bits 16..31 of its value, the payload is the next word.
void set0(StreamBuilder& b, u85::Cmd0 opcode, uint16_t param) {
  b.word(static_cast<uint32_t>(opcode) | uint32_t{param} << 16);
}
void set1(StreamBuilder& b, u85::Cmd1 opcode, uint32_t payload, uint16_t high = 0) {
  b.word(static_cast<uint32_t>(opcode) | kFormLong << kFormShift | uint32_t{high} << 16);
  b.word(payload);
}

constexpr uint16_t kSignedInt8Nhwc = 0x0001;      // IFM/OFM_PRECISION: signed, 8-bit, NHWC
constexpr uint16_t kGlobalScale = 0x0100;         // OFM_PRECISION: OFM_SCALE for every channel
constexpr uint16_t kNoStorage = 0xC000;           // OFM_PRECISION: storage NONE
constexpr uint16_t kResetDisable = 0x0040;        // ACC_FORMAT: int32, input RESET, output DISABLE
constexpr uint16_t kKeepEnable = 0x0010;          // ACC_FORMAT: int32, input KEEP, output ENABLE

// A 1x1x4 int8 POOL of `mode` over 1x1 windows of the IFM at byte `ifm` of region 1, into the
// OFM at byte 16, with the given OFM storage bits and ACC_FORMAT.
void pool(StreamBuilder& b, u85::PoolMode mode, uint32_t ifm, uint16_t ofm_storage, uint16_t acc_format) {
  set0(b, u85::Cmd0::kIfmRegion, 1);
  set1(b, u85::Cmd1::kIfmBase0, ifm);
  set0(b, u85::Cmd0::kIfmDepthM1, 3);
  set1(b, u85::Cmd1::kIfmStrideX, 4);
  set1(b, u85::Cmd1::kIfmStrideY, 4);
  set1(b, u85::Cmd1::kIfmStrideC, 1);
  set0(b, u85::Cmd0::kIfmPrecision, kSignedInt8Nhwc);
  set0(b, u85::Cmd0::kOfmRegion, 1);
  set1(b, u85::Cmd1::kOfmBase0, 16);
  set0(b, u85::Cmd0::kOfmDepthM1, 3);
  set1(b, u85::Cmd1::kOfmStrideX, 4);
  set1(b, u85::Cmd1::kOfmStrideY, 4);
  set1(b, u85::Cmd1::kOfmStrideC, 1);
  set0(b, u85::Cmd0::kOfmPrecision, kSignedInt8Nhwc | kGlobalScale | ofm_storage);
  set1(b, u85::Cmd1::kOfmScale, 1, 0x2000);  // x1, shift 0, rounding NATURAL
  set0(b, u85::Cmd0::kActivationMin, 0xFF80);
  set0(b, u85::Cmd0::kActivationMax, 0x007F);
  set0(b, u85::Cmd0::kAccFormat, acc_format);
  set0(b, u85::Cmd0::kPool, static_cast<uint16_t>(mode));
}

// Two pools chained through the kept accumulators (the first writes nothing), on IFMs A
// (bytes 0..3) and B (4..7) of the arena; the OFM is at bytes 16..19.
Status run_chained_pools(u85::PoolMode first, u85::PoolMode second, uint16_t first_storage,
                         std::vector<uint8_t>* arena) {
  StreamBuilder b("ethos-u85-256");
  pool(b, first, 0, first_storage, kResetDisable);
  pool(b, second, 4, 0, kKeepEnable);
  set0(b, u85::Cmd0::kStop, 0xFFFF);
  const std::vector<uint8_t> stream = b.finish();
  std::vector<uint8_t> weights(16, 0);
  const Region regions[] = {
      {weights.data(), weights.size(), false},
      {arena->data(), arena->size(), true},
      {nullptr, 0, true},
  };
  NpuModel model(find_accelerator("ethos-u85-256"));
  return model.run(stream.data(), stream.size(), regions, 3);
}

std::vector<uint8_t> two_ifms() {
  std::vector<uint8_t> arena(32, 0);
  const int8_t a[4] = {-100, 5, 7, 127};
  const int8_t b[4] = {3, -128, 7, 0};
  for (int i = 0; i < 4; ++i) {
    arena[i] = static_cast<uint8_t>(a[i]);
    arena[4 + i] = static_cast<uint8_t>(b[i]);
  }
  return arena;
}

// MAX and MIN from KEEP take the kept value as one more tap (Vela's max pools with a stride
// above 3: one 1x1 POOL MAX per window tap).
TEST(EthosU85, MaxAndMinFromKeptAccumulators) {
  std::vector<uint8_t> arena = two_ifms();
  Status s = run_chained_pools(u85::PoolMode::kMax, u85::PoolMode::kMax, kNoStorage, &arena);
  ASSERT_TRUE(s.ok());
  const int8_t max[4] = {3, 5, 7, 127};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(static_cast<int8_t>(arena[16 + i]), max[i]);

  arena = two_ifms();
  s = run_chained_pools(u85::PoolMode::kMin, u85::PoolMode::kMin, kNoStorage, &arena);
  ASSERT_TRUE(s.ok());
  const int8_t min[4] = {-100, -128, 7, 0};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(static_cast<int8_t>(arena[16 + i]), min[i]);
}

// SUM from KEEP adds; what is not modelled is refused, naming the command.
TEST(EthosU85, KeptAccumulatorModes) {
  std::vector<uint8_t> arena = two_ifms();
  Status s = run_chained_pools(u85::PoolMode::kSum, u85::PoolMode::kSum, kNoStorage, &arena);
  ASSERT_TRUE(s.ok());
  const int8_t sum[4] = {-97, -123, 14, 127};  // saturated to int8
  for (int i = 0; i < 4; ++i) EXPECT_EQ(static_cast<int8_t>(arena[16 + i]), sum[i]);

  arena = two_ifms();
  s = run_chained_pools(u85::PoolMode::kSum, u85::PoolMode::kAverage, kNoStorage, &arena);
  EXPECT_EQ(static_cast<int>(s.fault()), static_cast<int>(Fault::kUnsupported));
  EXPECT_TRUE(std::strstr(s.message(), "AVERAGE starting from kept accumulators") != nullptr);

  // Output DISABLE with an OFM stored to memory.
  arena = two_ifms();
  s = run_chained_pools(u85::PoolMode::kMax, u85::PoolMode::kMax, 0, &arena);
  EXPECT_EQ(static_cast<int>(s.fault()), static_cast<int>(Fault::kUnsupported));
  EXPECT_TRUE(std::strstr(s.message(), "output DISABLE with a stored") != nullptr);
}

// A POOL NONE whose accumulators start from a 64-bit IFM2 (how Vela reads back int48
// accumulators written to memory, e.g. conv_transpose at a16w8): `values` at byte 32 of the
// arena, 48-bit accumulators, a 32-bit OFM at byte 64 scaled by 2^-16.
Status run_ifm2_copy(const int64_t (&values)[4], std::vector<uint8_t>* arena) {
  arena->assign(96, 0);
  for (int i = 0; i < 4; ++i) {
    const uint64_t u = static_cast<uint64_t>(values[i]);
    for (int b = 0; b < 8; ++b) (*arena)[32 + 8 * i + b] = static_cast<uint8_t>(u >> (8 * b));
  }
  StreamBuilder b("ethos-u85-256");
  set0(b, u85::Cmd0::kIfmRegion, 1);
  set0(b, u85::Cmd0::kIfmDepthM1, 3);
  set1(b, u85::Cmd1::kIfmStrideX, 4);
  set1(b, u85::Cmd1::kIfmStrideY, 4);
  set0(b, u85::Cmd0::kIfmPrecision, kSignedInt8Nhwc);
  set0(b, u85::Cmd0::kIfm2Region, 1);
  set1(b, u85::Cmd1::kIfm2Base0, 32);
  set1(b, u85::Cmd1::kIfm2StrideX, 32);
  set1(b, u85::Cmd1::kIfm2StrideY, 32);
  set1(b, u85::Cmd1::kIfm2StrideC, 8);
  set0(b, u85::Cmd0::kIfm2Precision, 0x000D);  // signed, 64-bit, NHWC
  set0(b, u85::Cmd0::kOfmRegion, 1);
  set1(b, u85::Cmd1::kOfmBase0, 64);
  set0(b, u85::Cmd0::kOfmDepthM1, 3);
  set1(b, u85::Cmd1::kOfmStrideX, 16);
  set1(b, u85::Cmd1::kOfmStrideY, 16);
  set1(b, u85::Cmd1::kOfmStrideC, 4);
  set0(b, u85::Cmd0::kOfmPrecision, 0x0005 | kGlobalScale);  // signed, 32-bit, NHWC
  set1(b, u85::Cmd1::kOfmScale, 1, 0x2010);                   // x1, shift 16, rounding NATURAL
  set0(b, u85::Cmd0::kActivation, 0x1000);                    // clip range NONE: int32 saturation only
  set0(b, u85::Cmd0::kAccFormat, 0x0021);                     // int48, input IFM2, output ENABLE
  set0(b, u85::Cmd0::kPool, static_cast<uint16_t>(u85::PoolMode::kNone));
  set0(b, u85::Cmd0::kStop, 0xFFFF);
  const std::vector<uint8_t> stream = b.finish();
  std::vector<uint8_t> weights(16, 0);
  const Region regions[] = {
      {weights.data(), weights.size(), false},
      {arena->data(), arena->size(), true},
      {nullptr, 0, true},
  };
  NpuModel model(find_accelerator("ethos-u85-256"));
  return model.run(stream.data(), stream.size(), regions, 3);
}

TEST(EthosU85, AccumulatorsFromA64BitIfm2) {
  std::vector<uint8_t> arena;
  const int64_t values[4] = {int64_t{5} << 16, -(int64_t{3} << 16), int64_t{1} << 40, (int64_t{1} << 15) - 1};
  Status s = run_ifm2_copy(values, &arena);
  ASSERT_TRUE(s.ok());
  const int32_t want[4] = {5, -3, 1 << 24, 0};
  for (int i = 0; i < 4; ++i) {
    int32_t got = 0;
    std::memcpy(&got, arena.data() + 64 + 4 * i, 4);
    EXPECT_EQ(got, want[i]);
  }
  // A value the 48-bit accumulators cannot hold.
  const int64_t too_wide[4] = {0, int64_t{1} << 47, 0, 0};
  s = run_ifm2_copy(too_wide, &arena);
  EXPECT_EQ(static_cast<int>(s.fault()), static_cast<int>(Fault::kUnsupported));
  EXPECT_TRUE(std::strstr(s.message(), "does not fit the 48-bit accumulators") != nullptr);
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
