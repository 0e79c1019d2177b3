// The Ethos-U55/U65 configurations Vela compiles for, and what about them the model needs:
// the MAC count does not change any result, but the micro-block depths decide the order of
// the weights in a weight stream, the core count how weights and scales are split, and the
// internal memory (SHRAM) size where look-up tables live.
#pragma once

#include <cstdint>

namespace etarm {
namespace ethosu {
namespace npu_model {

enum class Product : uint8_t { kEthosU55 = 0, kEthosU65 = 1 };

struct Accelerator {
  const char* name;  // as etarm's and Vela's targets spell it: "ethos-u55-128"
  Product product;
  uint16_t macs;                // per core
  uint8_t cores;                // U65-512 has two
  uint8_t ofm_ublock_depth;     // OFM channels of one micro-block
  uint8_t ifm_ublock_depth;     // IFM channels of one micro-block
  uint8_t shram_banks;          // 1 KiB banks of internal memory, per core

  // The SHRAM a DMA in internal mode addresses: one core's (each core has its own copy).
  uint32_t shram_bytes() const {
    return uint32_t{shram_banks} * 1024u;
  }
  // The CONFIG register value a stream compiled for this NPU carries in its header:
  // log2(MACs of all cores) in bits 0..3, SHRAM KiB in bits 8..15, product in 28..31.
  uint32_t config_word() const;
};

// The configuration called `name` ("ethos-u55-128", "ethos-u65-512", ...), or nullptr.
const Accelerator* find_accelerator(const char* name);

// The configuration whose config_word() is `config` (ignoring the command-stream version
// and custom-DMA bits), or nullptr.
const Accelerator* accelerator_for_config(uint32_t config);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
