// VgfBackend: ExecuTorch's delegate for partitions compiled to VGF (`etarm compile -t vgf`;
// the payload is the model-converter's .vgf file, the same as executorch's Arm backend
// writes, so .pte files of either tool run here). Needs no compile specs.
//
// init() validates the payload (vgf_model.h) and builds everything on the device once
// (vulkan_graph.h): tensors, constants, pipelines, sessions, descriptor sets, the command
// buffer. execute() checks each argument (inputs, then outputs, in the order of the VGF's
// model sequence, which is the TOSA graph's) against the graph: dtype, shape, contiguity;
// int64 arguments bind to int32 tensors (inputs narrowed with a range check, outputs
// widened). It copies the inputs in, runs (fence wait with a timeout), copies the outputs
// out. destroy() releases it all. Every failure is an Error with an ET_LOG line.
//
// Linking: depend on //runtime/vgf (alwayslink: the backend registers itself under
// kBackendId from a static initialiser; registration_status() also keeps it linked).
//
// The Vulkan environment is read when init() creates the process's device (the first
// delegate, or the first after every delegate was destroyed), not at load time, so an
// in-process host (a Python extension) may set it just before loading a program:
//   VK_DRIVER_FILES   the driver manifest, e.g. /usr/share/vulkan/icd.d/lvp_icd.json
//                     (lavapipe) on a machine without a Vulkan ML device;
//   VK_LAYER_PATH     the directory holding the ML emulation layers' manifests (with
//                     library_path pointing at their .so), e.g. //runtime/vgf:emulation_layers
//                     or the installed ai-ml-emulation-layer-for-vulkan package's, rewritten;
//   ETARM_VGF_LAYERS, ETARM_VGF_DEVICE, ETARM_VGF_VALIDATION, ETARM_VGF_TIMEOUT_MS
//                     layer order, device choice, validation, timeout (vulkan_graph.h).
// docs/vgf_runtime.md.
#pragma once

#include <executorch/runtime/backend/interface.h>

#include "runtime/vgf/vulkan_graph.h"

namespace etarm {
namespace vgf {

// The id python/etarm/vgf writes into the .pte (and executorch's Arm backend too).
constexpr const char* kBackendId = "VgfBackend";

class VgfBackend final : public executorch::runtime::BackendInterface {
 public:
  bool is_available() const override;
  executorch::runtime::Result<executorch::runtime::DelegateHandle*> init(
      executorch::runtime::BackendInitContext& context, executorch::runtime::FreeableBuffer* processed,
      executorch::runtime::ArrayRef<executorch::runtime::CompileSpec> compile_specs) const override;
  Error execute(executorch::runtime::BackendExecutionContext& context, executorch::runtime::DelegateHandle* handle,
                executorch::runtime::Span<executorch::runtime::EValue*> args) const override;
  void destroy(executorch::runtime::DelegateHandle* handle) const override;
};

// The result of the static registration (Error::Ok once registered).
Error registration_status();

// The graph behind a delegate handle (what init() returned), for tests and diagnostics.
const VulkanGraph* handle_graph(const executorch::runtime::DelegateHandle* handle);

}  // namespace vgf
}  // namespace etarm
