#include "runtime/ethosu/npu_model/isa_u85.h"

#include <cstddef>

namespace etarm {
namespace ethosu {
namespace npu_model {
namespace u85 {
namespace {

struct Name {
  uint16_t value;
  const char* name;
};

constexpr Name kCmd0Names[] = {
    {0, "NPU_OP_STOP"},
    {1, "NPU_OP_IRQ"},
    {2, "NPU_OP_CONV"},
    {3, "NPU_OP_DEPTHWISE"},
    {5, "NPU_OP_POOL"},
    {6, "NPU_OP_ELEMENTWISE"},
    {7, "NPU_OP_RESIZE"},
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
    {264, "NPU_SET_IFM_BROADCAST"},
    {265, "NPU_SET_IFM_ZERO_POINT"},
    {266, "NPU_SET_IFM_WIDTH0_M1"},
    {267, "NPU_SET_IFM_HEIGHT0_M1"},
    {268, "NPU_SET_IFM_HEIGHT1_M1"},
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
    {292, "NPU_SET_ACC_FORMAT"},
    {293, "NPU_SET_ACTIVATION"},
    {294, "NPU_SET_ACTIVATION_MIN"},
    {295, "NPU_SET_ACTIVATION_MAX"},
    {296, "NPU_SET_WEIGHT_REGION"},
    {297, "NPU_SET_SCALE_REGION"},
    {298, "NPU_SET_RESIZE_X_SCALE_N_M1"},
    {299, "NPU_SET_RESIZE_Y_SCALE_N_M1"},
    {300, "NPU_SET_RESIZE_X_OFFSET"},
    {301, "NPU_SET_RESIZE_Y_OFFSET"},
    {302, "NPU_SET_WEIGHT_FORMAT"},
    {303, "NPU_SET_BLOCKDEP"},
    {304, "NPU_SET_DMA0_SRC_REGION"},
    {305, "NPU_SET_DMA0_DST_REGION"},
    {306, "NPU_SET_DMA0_SIZE0"},
    {307, "NPU_SET_DMA0_SIZE1"},
    {308, "NPU_SET_DMA0_IDX_REGION"},
    {384, "NPU_SET_IFM2_BROADCAST"},
    {389, "NPU_SET_IFM2_PRECISION"},
    {393, "NPU_SET_IFM2_ZERO_POINT"},
    {394, "NPU_SET_IFM2_WIDTH0_M1"},
    {395, "NPU_SET_IFM2_HEIGHT0_M1"},
    {396, "NPU_SET_IFM2_HEIGHT1_M1"},
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
    {37, "NPU_SET_IFM_SCALE"},
    {38, "NPU_SET_IFM2_SCALE"},
    {39, "NPU_SET_OP_SCALAR"},
    {48, "NPU_SET_DMA0_SRC"},
    {49, "NPU_SET_DMA0_DST"},
    {50, "NPU_SET_DMA0_LEN"},
    {51, "NPU_SET_DMA0_SRC_STRIDE0"},
    {52, "NPU_SET_DMA0_SRC_STRIDE1"},
    {53, "NPU_SET_DMA0_DST_STRIDE0"},
    {54, "NPU_SET_DMA0_DST_STRIDE1"},
    {55, "NPU_SET_DMA0_IDX"},
    {56, "NPU_SET_DMA0_IDX_MAX"},
    {57, "NPU_SET_DMA0_IDX_SKIP1"},
    {128, "NPU_SET_IFM2_BASE0"},
    {129, "NPU_SET_IFM2_BASE1"},
    {130, "NPU_SET_IFM2_BASE2"},
    {131, "NPU_SET_IFM2_BASE3"},
    {132, "NPU_SET_IFM2_STRIDE_X"},
    {133, "NPU_SET_IFM2_STRIDE_Y"},
    {134, "NPU_SET_IFM2_STRIDE_C"},
    {144, "NPU_SET_WEIGHT1_BASE"},
    {145, "NPU_SET_WEIGHT1_LENGTH"},
    {146, "NPU_SET_WEIGHT2_BASE"},
    {147, "NPU_SET_WEIGHT2_LENGTH"},
    {148, "NPU_SET_WEIGHT3_BASE"},
    {149, "NPU_SET_WEIGHT3_LENGTH"},
    {150, "NPU_SET_RESIZE_X"},
    {151, "NPU_SET_RESIZE_Y"},
    {256, "NPU_OP_BRANCH"},
};

constexpr Name kElementwiseModes[] = {
    {0, "ELEMENTWISE MUL"},
    {1, "ELEMENTWISE ADD"},
    {2, "ELEMENTWISE SUB"},
    {3, "ELEMENTWISE MIN"},
    {4, "ELEMENTWISE MAX"},
    {5, "ELEMENTWISE LRELU"},
    {6, "ELEMENTWISE ABS"},
    {7, "ELEMENTWISE CLZ"},
    {8, "ELEMENTWISE SHR"},
    {9, "ELEMENTWISE SHL"},
    {10, "ELEMENTWISE LSR"},
    {11, "ELEMENTWISE DIV"},
    {16, "ELEMENTWISE CMP_EQ"},
    {17, "ELEMENTWISE CMP_NE"},
    {18, "ELEMENTWISE CMP_GE"},
    {19, "ELEMENTWISE CMP_GT"},
    {33, "ELEMENTWISE AND"},
    {34, "ELEMENTWISE OR"},
    {35, "ELEMENTWISE XOR"},
    {36, "ELEMENTWISE NOT"},
    {42, "ELEMENTWISE AND_NOT"},
};

constexpr Name kPoolModes[] = {
    {0, "POOL MAX"},
    {1, "POOL AVERAGE"},
    {2, "POOL REDUCE_SUM"},
    {3, "POOL SUM"},
    {4, "POOL NONE"},
    {5, "POOL MIN"},
    {6, "POOL ARGMAX_X"},
    {7, "POOL ARGMAX_Y"},
};

constexpr Name kActivationFunctions[] = {
    {0, "LUT_NONE"},
    {1, "LUT_U8_U8"},
    {4, "LUT_S8_S8"},
    {5, "LUT_S8_S16"},
    {7, "LUT_S8_S32"},
    {8, "LUT_S16_S16"},
    {9, "LUT_S16_S32"},
    {10, "LUT_TANH"},
    {11, "LUT_SIGMOID"},
};

template <size_t N>
const char* find(const Name (&names)[N], uint32_t value) {
  for (const Name& n : names) {
    if (n.value == value) {
      return n.name;
    }
  }
  return nullptr;
}

const char* or_unknown(const char* name) {
  return name != nullptr ? name : "?";
}

}  // namespace

const char* cmd0_name(uint16_t opcode) {
  return find(kCmd0Names, opcode);
}

const char* cmd1_name(uint16_t opcode) {
  return find(kCmd1Names, opcode);
}

const char* elementwise_mode_name(uint32_t mode) {
  return or_unknown(find(kElementwiseModes, mode));
}

const char* pool_mode_name(uint32_t mode) {
  return or_unknown(find(kPoolModes, mode));
}

const char* activation_function_name(uint32_t function) {
  return or_unknown(find(kActivationFunctions, function));
}

}  // namespace u85
}  // namespace npu_model
}  // namespace ethosu
}  // namespace etarm
