// End to end below ExecuTorch: each case's .vgf is parsed, built on the shared device
// (lavapipe + the ML emulation layers, or whatever the environment names) and run; its
// outputs must equal the TOSA reference model's (integers bit-exact, floats within 1e-5
// relative). Prints pipeline creation and run times and the largest errors.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "runtime/testing/executorch.h"
#include "runtime/vgf/test/test_cases.h"
#include "runtime/vgf/vulkan_graph.h"

namespace etarm {
namespace vgf {
namespace test {
namespace {

constexpr int kTimedRuns = 5;

// Builds `c` on `device`, runs it kTimedRuns times and compares the outputs with the
// reference model's; returns the graph (nullptr after a failure).
std::unique_ptr<VulkanGraph> run_and_compare(const Case& c, const std::shared_ptr<VulkanDevice>& device) {
  std::string why;
  std::unique_ptr<VulkanGraph> graph;
  Error err = build_graph(c.vgf, device, &graph, &why);
  EXPECT_EQ(err, Error::Ok);
  if (err != Error::Ok) {
    ADD_FAILURE("%s", why.c_str());
    return nullptr;
  }
  // The model sequence's order is the TOSA graph's: same count, formats and shapes.
  EXPECT_EQ(graph->num_inputs(), c.inputs.size());
  EXPECT_EQ(graph->num_outputs(), c.expected.size());
  if (graph->num_inputs() != c.inputs.size() || graph->num_outputs() != c.expected.size()) {
    return nullptr;
  }
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    SCOPED_TRACE("input %zu", i);
    EXPECT_EQ(graph->input(i).vk_format, vk_format_of(c.inputs[i].dtype));
    EXPECT_TRUE(c.inputs[i].fits(graph->input(i).shape));
    EXPECT_EQ(graph->input(i).nbytes, c.inputs[i].bytes.size());
    if (graph->input(i).nbytes != c.inputs[i].bytes.size()) {
      return nullptr;
    }
    std::memcpy(graph->input_data(i), c.inputs[i].bytes.data(), c.inputs[i].bytes.size());
  }
  for (size_t o = 0; o < c.expected.size(); ++o) {
    SCOPED_TRACE("output %zu", o);
    EXPECT_EQ(graph->output(o).vk_format, vk_format_of(c.expected[o].dtype));
    EXPECT_TRUE(c.expected[o].fits(graph->output(o).shape));
    EXPECT_EQ(graph->output(o).nbytes, c.expected[o].bytes.size());
    if (graph->output(o).nbytes != c.expected[o].bytes.size()) {
      return nullptr;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  for (int run = 0; run < kTimedRuns; ++run) {
    err = graph->run(&why);
    EXPECT_EQ(err, Error::Ok);
    if (err != Error::Ok) {
      ADD_FAILURE("%s", why.c_str());
      return nullptr;
    }
  }
  const double run_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / kTimedRuns;
  Errors worst;
  for (size_t o = 0; o < c.expected.size(); ++o) {
    SCOPED_TRACE("output %zu", o);
    const Errors e = compare(c.expected[o], graph->output_data(o));
    EXPECT_EQ(e.mismatches, 0u);
    worst.max_abs = std::fmax(worst.max_abs, e.max_abs);
    worst.max_rel = std::fmax(worst.max_rel, e.max_rel);
  }
  std::printf("%-16s pipeline %.3f s  run %.2f ms  max abs error %.3g  max rel error %.3g  staged %zu\n",
              c.name.c_str(), graph->pipeline_seconds(), run_ms, worst.max_abs, worst.max_rel,
              graph->staged_tensors());
  return graph;
}

TEST(Graph, MatchesTheReferenceModel) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  const Error device_err = VulkanDevice::shared(&device, &why);
  if (device_err != Error::Ok) {
    FAIL("no device: %s", why.c_str());
  }
  std::printf("device: %s\n", device->description().c_str());
  for (const Case& c : cases) {
    SCOPED_TRACE("case %s", c.name.c_str());
    run_and_compare(c, device);
  }
}

// The path of devices whose tensor memory the host cannot map: graph inputs and outputs in
// the device's own tensors (optimal tiling), copied through host-visible staging tensors.
TEST(Graph, MatchesTheReferenceModelThroughStagingTensors) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  DeviceOptions options;
  std::string why;
  ASSERT_EQ(options_from_environment(&options, &why), Error::Ok);
  options.staging = true;
  std::shared_ptr<VulkanDevice> device;
  const Error device_err = VulkanDevice::create(options, &device, &why);
  if (device_err != Error::Ok) {
    FAIL("no device: %s", why.c_str());
  }
  for (const Case& c : cases) {
    SCOPED_TRACE("case %s", c.name.c_str());
    const std::unique_ptr<VulkanGraph> graph = run_and_compare(c, device);
    if (graph != nullptr) {
      EXPECT_EQ(graph->staged_tensors(), c.inputs.size() + c.expected.size());
    }
  }
}

// Runs again after other inputs: the command buffer is reused and outputs follow inputs.
TEST(Graph, RerunsWithNewInputs) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  const Case& c = cases[0];
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  ASSERT_EQ(VulkanDevice::shared(&device, &why), Error::Ok);
  std::unique_ptr<VulkanGraph> graph;
  ASSERT_EQ(build_graph(c.vgf, device, &graph, &why), Error::Ok);
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round %d", round);
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      // Round 1 runs on zeros; rounds 0 and 2 on the case's inputs.
      if (round == 1) {
        std::memset(graph->input_data(i), 0, graph->input(i).nbytes);
      } else {
        std::memcpy(graph->input_data(i), c.inputs[i].bytes.data(), c.inputs[i].bytes.size());
      }
    }
    ASSERT_EQ(graph->run(&why), Error::Ok);
    bool all_equal = true;
    for (size_t o = 0; o < c.expected.size(); ++o) {
      all_equal = all_equal && compare(c.expected[o], graph->output_data(o)).mismatches == 0;
    }
    EXPECT_EQ(all_equal, round != 1);
  }
}

// A tensor beyond the device's limits is refused before Vulkan sees it (the emulation
// layer would abort the process).
TEST(Graph, RefusesTensorsBeyondTheDeviceLimits) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  ASSERT_EQ(VulkanDevice::shared(&device, &why), Error::Ok);
  Payload payload(cases[0].vgf);
  VgfModel model;
  ASSERT_EQ(parse_vgf(payload.data(), payload.size(), &model, &why), Error::Ok);
  TensorDescription& input = model.resources[model.inputs[0].resource];
  input.shape[0] = int64_t{1} << 40;  // beyond any device's per-dimension limit
  input.element_count = input.shape[0];
  input.nbytes = input.element_count * input.element_size;
  std::unique_ptr<VulkanGraph> graph;
  EXPECT_EQ(VulkanGraph::create(device, model, &graph, &why), Error::NotSupported);
  std::printf("reason: %s\n", why.c_str());
}

TEST(Device, ReportsAMissingLayer) {
  DeviceOptions options;
  options.use_default_layers = false;
  options.layers = {"VK_LAYER_ETARM_does_not_exist"};
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  EXPECT_EQ(VulkanDevice::create(options, &device, &why), Error::NotSupported);
  EXPECT_TRUE(why.find("VK_LAYER_ETARM_does_not_exist") != std::string::npos);
  std::printf("reason: %s\n", why.c_str());
}

TEST(Device, ReportsMissingExtensionsWithoutTheEmulationLayers) {
  // lavapipe alone has neither VK_ARM_tensors nor VK_ARM_data_graph.
  DeviceOptions options;
  options.use_default_layers = false;
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  EXPECT_EQ(VulkanDevice::create(options, &device, &why), Error::NotSupported);
  EXPECT_TRUE(why.find("VK_ARM_") != std::string::npos);
  std::printf("reason: %s\n", why.c_str());
}

TEST(Device, ReportsADeviceIndexOutOfRange) {
  DeviceOptions options;
  options.device_index = 99;
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  EXPECT_EQ(VulkanDevice::create(options, &device, &why), Error::NotSupported);
  std::printf("reason: %s\n", why.c_str());
}

}  // namespace
}  // namespace test
}  // namespace vgf
}  // namespace etarm
