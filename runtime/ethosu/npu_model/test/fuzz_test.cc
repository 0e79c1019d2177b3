// Random corruptions of real command streams and weights (from reference cases): whatever
// the NPU model is given, it returns Ok or an error naming where the stream stops making
// sense; it never reads or writes outside the regions (run under AddressSanitizer too).
// Deterministic: a fixed seed per case. The model runs with a fixed workspace and a work
// limit, as on a small device, so a garbled size fails quickly instead of running long.
//
// Arguments: CASE files.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/ethosu/npu_model/npu_model.h"
#include "runtime/ethosu/npu_model/test/case_file.h"
#include "runtime/testing/files.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace test {
namespace {

constexpr int kRoundsPerCase = 600;
constexpr size_t kHeaderBytes = 32;  // COP1, config, NOPs, command-stream action

uint64_t next_random(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

void mutate(std::vector<uint8_t>* cmd, std::vector<uint8_t>* weights, uint64_t* rng) {
  const size_t words = (cmd->size() - kHeaderBytes) / 4;
  auto word_at = [&](size_t i) { return cmd->data() + kHeaderBytes + 4 * i; };
  const int edits = 1 + static_cast<int>(next_random(rng) % 4);
  for (int e = 0; e < edits && words > 0; ++e) {
    const size_t i = next_random(rng) % words;
    uint32_t w;
    std::memcpy(&w, word_at(i), 4);
    switch (next_random(rng) % 7) {
      case 0:  // a bit
        w ^= 1u << (next_random(rng) % 32);
        break;
      case 1:  // the parameter / payload to an extreme
        w = (w & 0xFFFF) | (static_cast<uint32_t>(next_random(rng) % 2 ? 0xFFFF : 0) << 16);
        break;
      case 2:  // a random word
        w = static_cast<uint32_t>(next_random(rng));
        break;
      case 3:  // a random opcode of either form
        w = (w & 0xFFFF0000u) | static_cast<uint32_t>(next_random(rng) % 0x400) |
            (static_cast<uint32_t>(next_random(rng) % 2) << 14);
        break;
      case 4:  // a small change of the parameter (sizes, strides, addresses)
        w += static_cast<uint32_t>((next_random(rng) % 9) - 4) << 16;
        break;
      case 5: {  // a weight or scale byte
        if (!weights->empty()) (*weights)[next_random(rng) % weights->size()] ^= static_cast<uint8_t>(next_random(rng));
        break;
      }
      default:  // drop the rest of the stream
        cmd->resize(kHeaderBytes + 4 * i + (next_random(rng) % 4 == 0 ? next_random(rng) % 4 : 0));
        return;
    }
    std::memcpy(word_at(i), &w, 4);
  }
}

TEST(NpuModelFuzz, CorruptStreamsNeverFault) {
  ASSERT_GT(etarm::testing::arg_count(), 0);
  static uint8_t workspace[8 << 20];
  size_t runs = 0, ok = 0, refused = 0;
  for (int a = 0; a < etarm::testing::arg_count(); ++a) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(etarm::testing::read_file(etarm::testing::arg(a), &bytes));
    Case c;
    CaseReader reader(bytes);
    ASSERT_TRUE(reader.read(&c));
    NpuModel model(find_accelerator(c.target.c_str()), workspace, sizeof(workspace));
    model.set_work_limit(4u << 20);
    uint64_t rng = 0x243F6A8885A308D3ull + static_cast<uint64_t>(a);
    for (const PartitionCase& p : c.partitions) {
      PayloadBlocks blocks;
      ASSERT_TRUE(payload_blocks(p.payload, &blocks));
      for (int round = 0; round < kRoundsPerCase; ++round) {
        std::vector<uint8_t> cmd = blocks.cmd_data;
        std::vector<uint8_t> weights = blocks.weight_data;
        mutate(&cmd, &weights, &rng);
        // Exact-size heap copies: AddressSanitizer sees any access past an end.
        std::vector<uint8_t> arena(blocks.scratch_size, 0x3C);
        Region regions[3] = {{weights.data(), weights.size(), false}, {arena.data(), arena.size(), true},
                             {nullptr, 0, true}};
        const Status s = model.run(cmd.data(), cmd.size(), regions, 3);
        ++runs;
        if (s.ok()) {
          ++ok;
          continue;
        }
        ++refused;
        if (std::strstr(s.message(), "byte") == nullptr) {
          ADD_FAILURE("an error that names no offset: %s", s.message());
        }
      }
    }
  }
  std::printf("%zu corrupted runs: %zu completed, %zu refused with an error\n", runs, ok, refused);
}

}  // namespace
}  // namespace test
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
