// Runs a decoded .vgf (vgf_model.h) on a Vulkan device with VK_ARM_tensors and
// VK_ARM_data_graph, independently of ExecuTorch (VgfBackend, vgf_backend.h, wraps it).
//
//   VulkanDevice  instance (explicit layers, optional validation), physical device, logical
//                 device with both extensions, the data-graph queue; shared by graphs.
//   VulkanGraph   per .vgf: one tensor per bound resource (graph inputs and outputs in
//                 mapped host-visible memory, or in the device's memory with a mapped
//                 staging tensor the command buffer copies through; the others optimal),
//                 per segment a data-graph pipeline with its constants, a session with its
//                 memory and descriptor sets; one command buffer recorded once and a fence.
//                 run() submits it and waits (finite timeout); inputs are written to and
//                 outputs read from the mapped memory.
// Everything is created by create() and released by the destructor. docs/vgf_runtime.md.
//
// Environment (read when a device is created, i.e. by the first graph of the process, or
// again after the last graph released it):
//   VK_DRIVER_FILES / VK_ICD_FILENAMES, VK_LAYER_PATH  read by the Vulkan loader: where the
//       driver (e.g. lavapipe's lvp_icd.json) and the layer manifests are.
//   ETARM_VGF_LAYERS     comma-separated instance layers to enable, in this order. Unset:
//       the ML emulation layers (VK_LAYER_ML_Graph_Emulation, then
//       VK_LAYER_ML_Tensor_Emulation: the Graph layer must come first) if the loader finds
//       them, else none (a device with native VK_ARM_tensors / VK_ARM_data_graph). Empty:
//       none.
//   ETARM_VGF_DEVICE     index of the physical device to use (default: the first with both
//       extensions and a data-graph queue).
//   ETARM_VGF_VALIDATION=1  also enable VK_LAYER_KHRONOS_validation; its errors are counted
//       (VulkanDevice::validation_errors()) and logged by the backend.
//   ETARM_VGF_TIMEOUT_MS  how long run() waits for the device (default 60000).
//   ETARM_VGF_STAGING=1  stage every graph input and output through a host-visible copy, as
//       on devices whose tensor memory the host cannot map (there it happens anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/vgf/vgf_model.h"

namespace etarm {
namespace vgf {

constexpr const char* kGraphEmulationLayer = "VK_LAYER_ML_Graph_Emulation";
constexpr const char* kTensorEmulationLayer = "VK_LAYER_ML_Tensor_Emulation";
constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

struct DeviceOptions {
  // Instance layers to enable, in this order; with use_default_layers, the ML emulation
  // layers the loader finds instead.
  std::vector<std::string> layers;
  bool use_default_layers = true;
  // Adds VK_LAYER_KHRONOS_validation (closest to the application) and a debug messenger.
  bool validation = false;
  // The physical device; -1: the first with both extensions and a data-graph queue.
  int device_index = -1;
  // How long VulkanGraph::run() waits for its fence.
  uint64_t timeout_ms = 60000;
  // Stage graph inputs and outputs through host-visible copies even where the device lets
  // the host map its tensors.
  bool staging = false;
};

// ETARM_VGF_LAYERS, ETARM_VGF_DEVICE, ETARM_VGF_VALIDATION and ETARM_VGF_TIMEOUT_MS (above).
// Sets *why and returns InvalidArgument when one of them is malformed.
Error options_from_environment(DeviceOptions* options, std::string* why);

class VulkanDevice {
 public:
  // A new instance and device. NotSupported (with *why naming what is missing: a driver, a
  // layer, a device, an extension, a data-graph queue) when none fits.
  static Error create(const DeviceOptions& options, std::shared_ptr<VulkanDevice>* device, std::string* why);
  // The process's device: the one a live graph holds, else a new one from the environment.
  static Error shared(std::shared_ptr<VulkanDevice>* device, std::string* why);

  ~VulkanDevice();
  VulkanDevice(const VulkanDevice&) = delete;
  VulkanDevice& operator=(const VulkanDevice&) = delete;

  // "llvmpipe (LLVM 19.1.7, 256 bits) [layers: VK_LAYER_ML_Graph_Emulation, ...]".
  const std::string& description() const;
  const DeviceOptions& options() const;
  // Errors the validation layer reported so far (the first few messages are kept).
  size_t validation_error_count() const;
  std::vector<std::string> validation_errors() const;

  struct Impl;

 private:
  explicit VulkanDevice(std::unique_ptr<Impl> impl);
  friend class VulkanGraph;
  std::unique_ptr<Impl> impl_;
};

class VulkanGraph {
 public:
  // Builds everything `model` needs on `device`. `model` (and the payload it points into)
  // is only read during the call.
  static Error create(std::shared_ptr<VulkanDevice> device, const VgfModel& model, std::unique_ptr<VulkanGraph>* graph,
                      std::string* why);

  ~VulkanGraph();
  VulkanGraph(const VulkanGraph&) = delete;
  VulkanGraph& operator=(const VulkanGraph&) = delete;

  // The model sequence's inputs and outputs, in order.
  size_t num_inputs() const;
  size_t num_outputs() const;
  const TensorDescription& input(size_t i) const;
  const TensorDescription& output(size_t i) const;
  // Their memory: input(i).nbytes / output(i).nbytes bytes, packed row-major. Write the
  // inputs before run(), read the outputs after it returned Ok.
  uint8_t* input_data(size_t i);
  const uint8_t* output_data(size_t i) const;

  // Submits the command buffer and waits for it. Internal (with *why) when the device
  // fails or does not finish within the timeout.
  Error run(std::string* why);

  // Wall time create() spent building the data-graph pipelines (shader compilation).
  double pipeline_seconds() const;
  // How many graph inputs and outputs go through staging tensors (DeviceOptions::staging, or
  // tensor memory the host cannot map).
  size_t staged_tensors() const;

  struct Impl;

 private:
  explicit VulkanGraph(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vgf
}  // namespace etarm
