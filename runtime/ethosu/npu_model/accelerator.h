// The Ethos-U55/U65/U85 configurations Vela compiles for, and what about them the model
// needs: the MAC count does not change any result, but the micro-block depths decide the
// order of the weights in a weight stream, the core count how weights and scales are split,
// and the internal memory (SHRAM; U85's LUT RAM) size where look-up tables live.
#pragma once

#include <cstdint>

namespace etarm {
namespace ethosu {
namespace npu_model {

enum class Product : uint8_t { kEthosU55 = 0, kEthosU65 = 1, kEthosU85 = 2 };

struct Accelerator {
  const char* name;  // as etarm's and Vela's targets spell it: "ethos-u55-128"
  Product product;
  uint16_t macs;                // per core
  uint8_t cores;                // U65-512 has two
  uint8_t ofm_ublock_depth;     // OFM channels of one micro-block (U55/U65)
  uint8_t ifm_ublock_depth;     // IFM channels of one micro-block
  uint8_t shram_banks;          // 1 KiB banks of internal memory, per core (U85: the LUT RAM)
  uint8_t axi_sram_log2 = 0;    // U85: log2 of the AXI SRAM ports
  uint8_t axi_ext_log2 = 0;     // U85: log2 of the AXI external ports

  // The SHRAM a DMA in internal mode addresses: one core's (each core has its own copy).
  uint32_t shram_bytes() const {
    return uint32_t{shram_banks} * 1024u;
  }
  // The CONFIG register value a stream compiled for this NPU carries in its header:
  // log2(MACs of all cores) in bits 0..3, product in 28..31, and in bits 8..15 the SHRAM
  // KiB (U55/U65) or log2 of the AXI SRAM ports (8..9), external ports (10) and weight
  // decoders, one per core (12..13) (U85).
  uint32_t config_word() const;
  const char* family() const {
    return product == Product::kEthosU85 ? "Ethos-U85" : product == Product::kEthosU65 ? "Ethos-U65" : "Ethos-U55";
  }
};

// The configuration called `name` ("ethos-u55-128", "ethos-u65-512", ...), or nullptr.
const Accelerator* find_accelerator(const char* name);

// The configuration whose config_word() is `config` (ignoring the command-stream version
// and custom-DMA bits), or nullptr.
const Accelerator* accelerator_for_config(uint32_t config);

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
