#include "runtime/ethosu/npu_model/accelerator.h"

#include <cstring>

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// Vela 5.2.0's accelerator tables (ethos_u55.cpp, ethos_u65.cpp, ethos_u85.cpp).
constexpr Accelerator kAccelerators[] = {
    {"ethos-u55-32", Product::kEthosU55, 32, 1, 4, 8, 16},
    {"ethos-u55-64", Product::kEthosU55, 64, 1, 8, 8, 16},
    {"ethos-u55-128", Product::kEthosU55, 128, 1, 8, 8, 24},
    {"ethos-u55-256", Product::kEthosU55, 256, 1, 8, 8, 48},
    {"ethos-u65-256", Product::kEthosU65, 256, 1, 8, 8, 48},
    {"ethos-u65-512", Product::kEthosU65, 256, 2, 8, 8, 48},
    {"ethos-u85-128", Product::kEthosU85, 128, 1, 0, 8, 2, 1, 0},
    {"ethos-u85-256", Product::kEthosU85, 256, 1, 0, 8, 2, 1, 0},
    {"ethos-u85-512", Product::kEthosU85, 256, 2, 0, 16, 2, 1, 0},
    {"ethos-u85-1024", Product::kEthosU85, 256, 4, 0, 16, 2, 1, 1},
    {"ethos-u85-2048", Product::kEthosU85, 512, 4, 0, 16, 2, 2, 1},
};

// Bits of the CONFIG register that identify the configuration.
constexpr uint32_t kConfigIdentityMask = 0xF000FF0F;

}  // namespace

uint32_t Accelerator::config_word() const {
  uint32_t total_macs = uint32_t{macs} * cores;
  uint32_t log2_macs = 0;
  while (total_macs > 1) {
    total_macs >>= 1;
    ++log2_macs;
  }
  const uint32_t product_bits = static_cast<uint32_t>(product) << 28;
  if (product == Product::kEthosU85) {
    const uint32_t log2_cores = cores == 4 ? 2 : cores == 2 ? 1 : 0;
    return log2_macs | (uint32_t{axi_sram_log2} << 8) | (uint32_t{axi_ext_log2} << 10) | (log2_cores << 12) |
           product_bits;
  }
  const uint32_t shram_kib = uint32_t{shram_banks} * cores;
  return log2_macs | (shram_kib << 8) | product_bits;
}

const Accelerator* find_accelerator(const char* name) {
  for (const Accelerator& a : kAccelerators) {
    if (name != nullptr && std::strcmp(a.name, name) == 0) {
      return &a;
    }
  }
  return nullptr;
}

const Accelerator* accelerator_for_config(uint32_t config) {
  for (const Accelerator& a : kAccelerators) {
    if ((a.config_word() & kConfigIdentityMask) == (config & kConfigIdentityMask)) {
      return &a;
    }
  }
  return nullptr;
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
