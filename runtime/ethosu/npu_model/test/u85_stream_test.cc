// Real Ethos-U85 command streams (models compiled by etarm and Vela for ethos-u85-*, see
// make_case.py) read with the U85 command set: the header's CONFIG word names the target
// the case was compiled for, every command word is one the command set defines, and the
// stream runs to a result (64-bit OFMs and kept accumulators included). Prints how often each
// command occurs (a dump of what Vela writes for U85).
//
// Arguments: CASE files compiled for an ethos-u85-* target.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/command_stream.h"
#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
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

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
