#include "runtime/ethosu/npu_model/isa.h"

#include <cstddef>

#include "runtime/ethosu/npu_model/isa_u85.h"

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace {

struct Name {
  uint16_t opcode;
  const char* name;
};

constexpr Name kCmd0Names[] = {
    {0, "NPU_OP_STOP"},
    {1, "NPU_OP_IRQ"},
    {2, "NPU_OP_CONV"},
    {3, "NPU_OP_DEPTHWISE"},
    {5, "NPU_OP_POOL"},
    {6, "NPU_OP_ELEMENTWISE"},
    {16, "NPU_OP_DMA_START"},
    {17, "NPU_OP_DMA_WAIT"},
    {18, "NPU_OP_KERNEL_WAIT"},
    {19, "NPU_OP_PMU_MASK"},
    {256, "NPU_SET_IFM_PAD_TOP"},
    {257, "NPU_SET_IFM_PAD_LEFT"},
    {258, "NPU_SET_IFM_PAD_RIGHT"},
    {259, "NPU_SET_IFM_PAD_BOTTOM"},
    {260, "NPU_SET_IFM_DEPTH_M1"},
    {261, "NPU_SET_IFM_PRECISION"},
    {263, "NPU_SET_IFM_UPSCALE"},
    {265, "NPU_SET_IFM_ZERO_POINT"},
    {266, "NPU_SET_IFM_WIDTH0_M1"},
    {267, "NPU_SET_IFM_HEIGHT0_M1"},
    {268, "NPU_SET_IFM_HEIGHT1_M1"},
    {269, "NPU_SET_IFM_IB_END"},
    {271, "NPU_SET_IFM_REGION"},
    {273, "NPU_SET_OFM_WIDTH_M1"},
    {274, "NPU_SET_OFM_HEIGHT_M1"},
    {275, "NPU_SET_OFM_DEPTH_M1"},
    {276, "NPU_SET_OFM_PRECISION"},
    {277, "NPU_SET_OFM_BLK_WIDTH_M1"},
    {278, "NPU_SET_OFM_BLK_HEIGHT_M1"},
    {279, "NPU_SET_OFM_BLK_DEPTH_M1"},
    {280, "NPU_SET_OFM_ZERO_POINT"},
    {282, "NPU_SET_OFM_WIDTH0_M1"},
    {283, "NPU_SET_OFM_HEIGHT0_M1"},
    {284, "NPU_SET_OFM_HEIGHT1_M1"},
    {287, "NPU_SET_OFM_REGION"},
    {288, "NPU_SET_KERNEL_WIDTH_M1"},
    {289, "NPU_SET_KERNEL_HEIGHT_M1"},
    {290, "NPU_SET_KERNEL_STRIDE"},
    {291, "NPU_SET_PARALLEL_MODE"},
    {292, "NPU_SET_ACC_FORMAT"},
    {293, "NPU_SET_ACTIVATION"},
    {294, "NPU_SET_ACTIVATION_MIN"},
    {295, "NPU_SET_ACTIVATION_MAX"},
    {296, "NPU_SET_WEIGHT_REGION"},
    {297, "NPU_SET_SCALE_REGION"},
    {301, "NPU_SET_AB_START"},
    {303, "NPU_SET_BLOCKDEP"},
    {304, "NPU_SET_DMA0_SRC_REGION"},
    {305, "NPU_SET_DMA0_DST_REGION"},
    {306, "NPU_SET_DMA0_SIZE0"},
    {307, "NPU_SET_DMA0_SIZE1"},
    {384, "NPU_SET_IFM2_BROADCAST"},
    {385, "NPU_SET_IFM2_SCALAR"},
    {389, "NPU_SET_IFM2_PRECISION"},
    {393, "NPU_SET_IFM2_ZERO_POINT"},
    {394, "NPU_SET_IFM2_WIDTH0_M1"},
    {395, "NPU_SET_IFM2_HEIGHT0_M1"},
    {396, "NPU_SET_IFM2_HEIGHT1_M1"},
    {397, "NPU_SET_IFM2_IB_START"},
    {399, "NPU_SET_IFM2_REGION"},
};

constexpr Name kCmd1Names[] = {
    {0, "NPU_SET_IFM_BASE0"},
    {1, "NPU_SET_IFM_BASE1"},
    {2, "NPU_SET_IFM_BASE2"},
    {3, "NPU_SET_IFM_BASE3"},
    {4, "NPU_SET_IFM_STRIDE_X"},
    {5, "NPU_SET_IFM_STRIDE_Y"},
    {6, "NPU_SET_IFM_STRIDE_C"},
    {16, "NPU_SET_OFM_BASE0"},
    {17, "NPU_SET_OFM_BASE1"},
    {18, "NPU_SET_OFM_BASE2"},
    {19, "NPU_SET_OFM_BASE3"},
    {20, "NPU_SET_OFM_STRIDE_X"},
    {21, "NPU_SET_OFM_STRIDE_Y"},
    {22, "NPU_SET_OFM_STRIDE_C"},
    {32, "NPU_SET_WEIGHT_BASE"},
    {33, "NPU_SET_WEIGHT_LENGTH"},
    {34, "NPU_SET_SCALE_BASE"},
    {35, "NPU_SET_SCALE_LENGTH"},
    {36, "NPU_SET_OFM_SCALE"},
    {37, "NPU_SET_OPA_SCALE"},
    {38, "NPU_SET_OPB_SCALE"},
    {48, "NPU_SET_DMA0_SRC"},
    {49, "NPU_SET_DMA0_DST"},
    {50, "NPU_SET_DMA0_LEN"},
    {51, "NPU_SET_DMA0_SKIP0"},
    {52, "NPU_SET_DMA0_SKIP1"},
    {128, "NPU_SET_IFM2_BASE0"},
    {129, "NPU_SET_IFM2_BASE1"},
    {130, "NPU_SET_IFM2_BASE2"},
    {131, "NPU_SET_IFM2_BASE3"},
    {132, "NPU_SET_IFM2_STRIDE_X"},
    {133, "NPU_SET_IFM2_STRIDE_Y"},
    {134, "NPU_SET_IFM2_STRIDE_C"},
    {144, "NPU_SET_WEIGHT1_BASE"},
    {145, "NPU_SET_WEIGHT1_LENGTH"},
    {146, "NPU_SET_SCALE1_BASE"},
    {147, "NPU_SET_SCALE1_LENGTH"},
};

template <size_t N>
const char* find(const Name (&names)[N], uint16_t opcode) {
  for (const Name& n : names) {
    if (n.opcode == opcode) {
      return n.name;
    }
  }
  return nullptr;
}

}  // namespace

const char* cmd0_name(uint16_t opcode) {
  return find(kCmd0Names, opcode);
}

const char* cmd1_name(uint16_t opcode) {
  return find(kCmd1Names, opcode);
}

const char* command_name(CommandSet set, bool is_long, uint16_t opcode) {
  if (set == CommandSet::kEthosU85) {
    return is_long ? u85::cmd1_name(opcode) : u85::cmd0_name(opcode);
  }
  return is_long ? cmd1_name(opcode) : cmd0_name(opcode);
}

}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
