#include "runtime/ethosu/npu_model/accelerator.h"

#include <cstring>


namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

// Vela 5.2.0's accelerator tables (ethos_u55.cpp, ethos_u65.cpp).
constexpr Accelerator kAccelerators[] = {
    {"ethos-u55-32", Product::kEthosU55, 32, 1, 4, 8, 16},
    {"ethos-u55-64", Product::kEthosU55, 64, 1, 8, 8, 16},
    {"ethos-u55-128", Product::kEthosU55, 128, 1, 8, 8, 24},
    {"ethos-u55-256", Product::kEthosU55, 256, 1, 8, 8, 48},
    {"ethos-u65-256", Product::kEthosU65, 256, 1, 8, 8, 48},
    {"ethos-u65-512", Product::kEthosU65, 256, 2, 8, 8, 48},
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
  const uint32_t shram_kib = uint32_t{shram_banks} * cores;
  return log2_macs | (shram_kib << 8) | (static_cast<uint32_t>(product) << 28);
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
