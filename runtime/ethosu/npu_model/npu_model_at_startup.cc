// Installs the NPU model as the Ethos-U driver when the program starts, for images and
// programs that run Ethos-U partitions without an NPU (a Cortex-M board in QEMU, a host):
// link one of the :npu_model_at_startup_<accelerator> libraries (BUILD.bazel), which set
// ETARM_NPU_MODEL_ACCELERATOR to the NPU the program was compiled for. The model takes its
// working memory from the heap.
#include "runtime/ethosu/driver.h"
#include "runtime/ethosu/npu_model/npu_model_driver.h"

namespace {

etarm::ethosu::NpuModelDriver g_npu_model(ETARM_NPU_MODEL_ACCELERATOR);
// The delegate keeps the pointer; a static initialiser installs it before main() runs.
const etarm::ethosu::EthosUDriver* const g_previous = etarm::ethosu::set_driver(&g_npu_model);

}  // namespace
