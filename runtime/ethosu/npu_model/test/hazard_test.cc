// The hazard checker (hazards.h): hand-made streams with and without the waits the hardware
// needs, and Vela's own streams with each of their wait commands removed in turn.
//
// Arguments: case files (make_case.py) of real U55/U65 and U85 streams.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
#include "runtime/ethosu/npu_model/test/stream_builder.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

// ---- hand-made streams -----------------------------------------------------------------
// Region 1 (96 bytes, byte i holding i) holds an ADD's IFM [0, 16), IFM2 [16, 32) and OFM
// [32, 48); DMAs copy from [48, 64), and [64, 96) is for DMAs no kernel touches.
struct Arena {
  std::vector<uint8_t> weights = std::vector<uint8_t>(64, 0);
  std::vector<uint8_t> arena = std::vector<uint8_t>(96, 0);
  Region regions[2];
  Arena() {
    for (int i = 0; i < 96; ++i) arena[i] = static_cast<uint8_t>(i);
    regions[0] = Region{weights.data(), weights.size(), false};
    regions[1] = Region{arena.data(), arena.size(), true};
  }
  Status run(const std::vector<uint8_t>& payload, const char* accelerator = "ethos-u55-128") {
    NpuModel model(find_accelerator(accelerator));
    return model.run(payload.data(), payload.size(), regions, 2);
  }
};

// A 1D DMA of `len` bytes from region 1 `src` to region 1 `dst`; its offset in *at.
void dma(StreamBuilder& s, uint64_t src, uint64_t dst, uint64_t len, size_t* at) {
  s.cmd0(Cmd0::kDma0SrcRegion, 1).cmd1(Cmd1::kDma0Src, src).cmd0(Cmd0::kDma0DstRegion, 1).cmd1(Cmd1::kDma0Dst, dst);
  s.cmd1(Cmd1::kDma0Len, len);
  *at = s.next_offset();
  s.cmd0(Cmd0::kDmaStart);
}

// The error is a hazard naming `later` at `later_at` (the failing command) and `earlier` at
// `earlier_at` (the one that may still run), and contains `detail`.
bool is_hazard(const Status& s, const char* later, size_t later_at, const char* earlier, size_t earlier_at,
               const char* detail) {
  char first[96];
  char second[96];
  std::snprintf(first, sizeof(first), "%s at byte %zu:", later, later_at);
  std::snprintf(second, sizeof(second), "%s at byte %zu", earlier, earlier_at);
  const char* m = s.message();
  const char* a = std::strstr(m, first);
  if (s.fault() != Fault::kHazard || a != m || std::strstr(m + std::strlen(first), second) == nullptr ||
      std::strstr(m, detail) == nullptr) {
    std::printf("  message: %s\n  expected a hazard naming '%s', then '%s', with '%s'\n", m, first, second, detail);
    return false;
  }
  return true;
}

// An elementwise ADD of 2x2x4 int8 feature maps in region 1 (IFM at `ifm`, IFM2 at `ifm2`,
// OFM at `ofm`, 16 bytes each) with BLOCKDEP `blockdep`; its offset in *at.
void add(StreamBuilder& s, uint64_t ifm, uint64_t ifm2, uint64_t ofm, uint16_t blockdep, size_t* at) {
  ifm_registers(s, 1, ifm, 2, 2, 4);
  ifm2_registers(s, 1, ifm2, 2, 2, 4);
  ofm_registers(s, 1, ofm, 2, 2, 4);
  s.cmd1(Cmd1::kOpaScale, 1).cmd1(Cmd1::kOpbScale, 1).cmd0(Cmd0::kBlockDep, blockdep);
  *at = s.next_offset();
  s.cmd0(Cmd0::kElementwise, static_cast<uint16_t>(ElementwiseMode::kAdd));
}

// (a) A DMA fills the ADD's IFM: the ADD must wait for it.
TEST(Hazards, KernelReadingAPendingDmaNeedsDmaWait) {
  for (bool wait : {false, true}) {
    StreamBuilder s;
    size_t dma_at = 0;
    size_t add_at = 0;
    dma(s, 48, 0, 16, &dma_at);
    if (wait) s.cmd0(Cmd0::kDmaWait, 0);
    add(s, 0, 16, 32, 0, &add_at);
    Arena a;
    const Status st = a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish());
    if (wait) {
      ASSERT_TRUE(st.ok());
      EXPECT_EQ(a.arena[32], 48 + 16);  // the copied IFM plus IFM2
      EXPECT_EQ(a.arena[47], 63 + 31);
    } else {
      EXPECT_TRUE(is_hazard(st, "NPU_OP_ELEMENTWISE", add_at, "NPU_OP_DMA_START", dma_at,
                            "IFM read [0, 16) of region 1 overlaps the DMA destination write [0, 16)"));
      EXPECT_TRUE(std::strstr(st.message(), "no NPU_OP_DMA_WAIT") != nullptr);
    }
  }
}

// (b) A DMA overwrites what a running kernel reads, or reads what it writes: KERNEL_WAIT.
TEST(Hazards, DmaTouchingARunningKernelNeedsKernelWait) {
  struct Case {
    uint64_t src, dst;
    const char* detail;
  } kCases[] = {
      {48, 16, "DMA destination write [16, 32) of region 1 overlaps the IFM2 read [16, 32)"},  // write after read
      {32, 48, "DMA source read [32, 48) of region 1 overlaps the OFM write [32, 48)"},        // read after write
  };
  for (const Case& c : kCases) {
    for (bool wait : {false, true}) {
      StreamBuilder s;
      size_t add_at = 0;
      size_t dma_at = 0;
      add(s, 0, 16, 32, 0, &add_at);
      if (wait) s.cmd0(Cmd0::kKernelWait, 0);
      dma(s, c.src, c.dst, 16, &dma_at);
      Arena a;
      const Status st = a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish());
      if (wait) {
        EXPECT_TRUE(st.ok());
      } else {
        EXPECT_TRUE(is_hazard(st, "NPU_OP_DMA_START", dma_at, "NPU_OP_ELEMENTWISE", add_at, c.detail));
        EXPECT_TRUE(std::strstr(st.message(), "no NPU_OP_KERNEL_WAIT") != nullptr);
      }
    }
  }
}

// (d) Two DMAs into the same bytes: the second waits for the first. Reads of the same bytes
// do not conflict.
TEST(Hazards, DmaAfterDma) {
  for (bool wait : {false, true}) {
    StreamBuilder s;
    size_t first = 0;
    size_t second = 0;
    dma(s, 48, 0, 16, &first);
    if (wait) s.cmd0(Cmd0::kDmaWait, 0);
    dma(s, 32, 8, 16, &second);
    Arena a;
    const Status st = a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish());
    if (wait) {
      EXPECT_TRUE(st.ok());
    } else {
      EXPECT_TRUE(is_hazard(st, "NPU_OP_DMA_START", second, "NPU_OP_DMA_START", first,
                            "DMA destination write [8, 24) of region 1 overlaps the DMA destination write [0, 16)"));
    }
  }
  StreamBuilder s;
  size_t at = 0;
  dma(s, 48, 0, 8, &at);
  dma(s, 48, 8, 8, &at);
  Arena a;
  EXPECT_TRUE(a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish()).ok());
}

// What retires a command: a wait's parameter leaves that many of the newest running, and
// issuing past the queue limit (U55: 1 DMA, U65: 2, U85: 4; 2 kernels) retires the oldest.
TEST(Hazards, WaitsAndQueueLimitsRetire) {
  struct Case {
    const char* accelerator;
    int unrelated_dmas;
    int wait;  // DMA_WAIT parameter before the ADD, or -1 for none
    bool hazard;
  } kCases[] = {
      {"ethos-u55-128", 1, -1, false},  // the second DMA retires the first on U55
      {"ethos-u65-256", 1, -1, true},   // U65 runs two at once
      {"ethos-u65-256", 2, -1, false},
      {"ethos-u65-256", 1, 1, false},   // DMA_WAIT 1: only the newest (unrelated) DMA may still run
      {"ethos-u55-128", 0, 1, true},    // DMA_WAIT 1 on U55 waits for nothing
  };
  for (const Case& c : kCases) {
    StreamBuilder s(c.accelerator);
    size_t dma_at = 0;
    size_t other_at = 0;
    size_t add_at = 0;
    dma(s, 48, 0, 16, &dma_at);
    for (int i = 0; i < c.unrelated_dmas; ++i) dma(s, 64, 80 + 8 * i, 8, &other_at);
    if (c.wait >= 0) s.cmd0(Cmd0::kDmaWait, static_cast<uint16_t>(c.wait));
    add(s, 0, 16, 32, 0, &add_at);
    Arena a;
    const Status st = a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish(), c.accelerator);
    std::printf("  %s, %d unrelated DMAs, wait %d: %s\n", c.accelerator, c.unrelated_dmas, c.wait,
                st.ok() ? "no hazard" : st.message());
    if (c.hazard) {
      EXPECT_TRUE(is_hazard(st, "NPU_OP_ELEMENTWISE", add_at, "NPU_OP_DMA_START", dma_at, "IFM read [0, 16)"));
    } else {
      EXPECT_TRUE(st.ok());
    }
  }
  // KERNEL_WAIT 1 leaves the newest kernel running: a DMA conflicting with the older waits
  // long enough, one conflicting with the newer does not.
  for (bool newest : {false, true}) {
    StreamBuilder s;
    size_t first = 0;
    size_t second = 0;
    size_t dma_at = 0;
    add(s, 0, 16, 32, 0, &first);
    add(s, 0, 16, 48, 3, &second);
    s.cmd0(Cmd0::kKernelWait, 1);
    dma(s, 0, newest ? 48 : 32, 8, &dma_at);
    Arena a;
    const Status st = a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish());
    if (newest) {
      EXPECT_TRUE(is_hazard(st, "NPU_OP_DMA_START", dma_at, "NPU_OP_ELEMENTWISE", second,
                            "DMA destination write [48, 56) of region 1 overlaps the OFM write [48, 64)"));
    } else {
      EXPECT_TRUE(st.ok());
    }
  }
}

// (c) BLOCKDEP > 0 lets a kernel start before the previous ends: allowed when it reads the
// previous OFM as that same tensor (Vela then limits BLOCKDEP by the blocks) or as a view from
// its first byte (a reshape, which Vela 5.2.0 also starts early), an error when it reads those
// bytes from another start (here a 1x4x4 view 8 bytes into the 2x2x4 OFM).
TEST(Hazards, BlockDependency) {
  struct Case {
    uint64_t ifm;
    int h, w;
    uint16_t blockdep;
    const char* hazard;  // what the message says, or nullptr
  } kCases[] = {
      {32, 2, 2, 3, nullptr},  // the previous OFM itself
      {40, 1, 4, 1, "IFM read [40, 56) of region 1 overlaps that kernel's OFM write [32, 48) as another tensor"},
      {40, 1, 4, 0, nullptr},  // BLOCKDEP 0: the previous kernel has finished
      {32, 1, 4, 2, nullptr},  // a 1x4x4 view from the OFM's first byte
  };
  for (const Case& c : kCases) {
    StreamBuilder s;
    size_t first = 0;
    size_t second = 0;
    add(s, 0, 16, 32, 0, &first);
    ifm_registers(s, 1, c.ifm, c.h, c.w, 4);
    ifm2_registers(s, 1, 16, c.h, c.w, 4);
    ofm_registers(s, 1, 64, c.h, c.w, 4);
    s.cmd0(Cmd0::kBlockDep, c.blockdep);
    second = s.next_offset();
    s.cmd0(Cmd0::kElementwise, static_cast<uint16_t>(ElementwiseMode::kAdd));
    Arena a;
    const Status st = a.run(s.cmd0(Cmd0::kStop, 0xFFFF).finish());
    if (c.hazard != nullptr) {
      EXPECT_TRUE(is_hazard(st, "NPU_OP_ELEMENTWISE", second, "NPU_OP_ELEMENTWISE", first, c.hazard));
      char lets[64];
      std::snprintf(lets, sizeof(lets), "BLOCKDEP %u lets this kernel start before", static_cast<unsigned>(c.blockdep));
      EXPECT_TRUE(std::strstr(st.message(), lets) != nullptr);
    } else {
      EXPECT_TRUE(st.ok());
    }
  }
}

// ---- Vela's streams without each of their waits -----------------------------------------
// `stream` (a COP1 driver payload) without the command word at `offset`: the word removed
// and the command-stream action's 24-bit word count lowered by one.
std::vector<uint8_t> without_word(const std::vector<uint8_t>& stream, const DriverPayload& header, size_t offset) {
  std::vector<uint8_t> out = stream;
  out.erase(out.begin() + static_cast<std::ptrdiff_t>(offset), out.begin() + static_cast<std::ptrdiff_t>(offset) + 4);
  uint8_t* action = out.data() + header.commands_begin - 4;
  const uint32_t word = read_u32(action);
  const uint32_t count = ((word >> 8) & 0xFF) << 16 | word >> 16;
  const uint32_t lowered = count - 1;
  const uint32_t updated = (word & 0xFF) | ((lowered >> 16) & 0xFF) << 8 | (lowered & 0xFFFF) << 16;
  for (int b = 0; b < 4; ++b) action[b] = static_cast<uint8_t>(updated >> (8 * b));
  return out;
}

// Every real stream runs without a hazard. Vela emits a wait only right before the command
// its access model finds in conflict with a DMA or kernel still running, so with one
// NPU_OP_DMA_WAIT or NPU_OP_KERNEL_WAIT removed that command touches bytes the other writes
// (or writes what it reads): every removal must be reported, naming both commands.
TEST(Hazards, VelaStreamsWithoutEachWait) {
  ASSERT_GT(etarm::testing::arg_count(), 0);
  size_t removals[2] = {};  // U55/U65, U85
  size_t flagged[2] = {};
  for (int arg = 0; arg < etarm::testing::arg_count(); ++arg) {
    const char* path = etarm::testing::arg(arg);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(etarm::testing::read_file(path, &bytes));
    Case c;
    CaseReader reader(bytes);
    ASSERT_TRUE(reader.read(&c));
    const Accelerator* accelerator = find_accelerator(c.target.c_str());
    ASSERT_TRUE(accelerator != nullptr);
    const int family = accelerator->product == Product::kEthosU85 ? 1 : 0;
    for (size_t p = 0; p < c.partitions.size(); ++p) {
      PayloadBlocks blocks;
      ASSERT_TRUE(payload_blocks(c.partitions[p].payload, &blocks));
      const Status unmodified = run_on_zeroed_scratch(c.target.c_str(), blocks.cmd_data, blocks);
      if (!unmodified.ok()) {
        ADD_FAILURE("%s p%zu unmodified: %s", case_name(path).c_str(), p, unmodified.message());
        continue;
      }
      DriverPayload header;
      ASSERT_TRUE(parse_driver_payload(blocks.cmd_data.data(), blocks.cmd_data.size(), &header).ok());
      CommandReader commands(blocks.cmd_data.data(), header.commands_begin, header.commands_end,
                             family == 1 ? CommandSet::kEthosU85 : CommandSet::kEthosU55);
      std::vector<Command> waits;
      while (!commands.done()) {
        Command command;
        ASSERT_TRUE(commands.next(&command).ok());
        if (!command.is_long && (command.opcode == static_cast<uint16_t>(Cmd0::kDmaWait) ||
                                 command.opcode == static_cast<uint16_t>(Cmd0::kKernelWait))) {
          waits.push_back(command);
        }
      }
      size_t case_flagged = 0;
      for (const Command& wait : waits) {
        const std::vector<uint8_t> edited = without_word(blocks.cmd_data, header, wait.offset);
        const Status s = run_on_zeroed_scratch(c.target.c_str(), edited, blocks);
        ++removals[family];
        if (s.ok()) {
          std::printf("  %s p%zu without %s %u at byte %zu: not flagged\n", case_name(path).c_str(), p, wait.name(),
                      static_cast<unsigned>(wait.param), wait.offset);
          continue;
        }
        EXPECT_EQ(static_cast<int>(s.fault()), static_cast<int>(Fault::kHazard));
        // Both commands named: the failing one in front, the one still running inside.
        EXPECT_TRUE(std::strstr(s.message(), " at byte ") != nullptr &&
                    std::strstr(std::strstr(s.message(), " at byte ") + 1, " at byte ") != nullptr);
        ++flagged[family];
        ++case_flagged;
      }
      std::printf("%-32s p%zu %s: %zu waits, %zu removals flagged\n", case_name(path).c_str(), p, c.target.c_str(),
                  waits.size(), case_flagged);
    }
  }
  std::printf("U55/U65: %zu of %zu removals flagged; U85: %zu of %zu\n", flagged[0], removals[0], flagged[1],
              removals[1]);
  for (int family = 0; family < 2; ++family) {
    EXPECT_GT(flagged[family], size_t{0});
    EXPECT_EQ(flagged[family], removals[family]);
  }
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
