// The Khronos validation layer (VK_LAYER_KHRONOS_validation, closest to the application,
// above the ML emulation layers) watches every case being built, run and destroyed: it
// must report no error, and the outputs must still equal the reference model's.
#include <cstdio>

#include "runtime/testing/executorch.h"
#include "runtime/vgf/test/test_cases.h"
#include "runtime/vgf/vulkan_graph.h"

namespace etarm {
namespace vgf {
namespace test {
namespace {

void expect_no_validation_errors(const VulkanDevice& device) {
  EXPECT_EQ(device.validation_error_count(), 0u);
  for (const std::string& message : device.validation_errors()) {
    ADD_FAILURE("validation: %s", message.c_str());
  }
}

TEST(Validation, ReportsNoErrorOnEveryCase) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  // The environment's options (ETARM_VGF_STAGING=1 for validation_staging_test).
  DeviceOptions options;
  std::string why;
  ASSERT_EQ(options_from_environment(&options, &why), Error::Ok);
  options.validation = true;
  std::shared_ptr<VulkanDevice> device;
  const Error err = VulkanDevice::create(options, &device, &why);
  if (err != Error::Ok) {
    FAIL("no device with the validation layer: %s", why.c_str());
  }
  std::printf("device: %s\n", device->description().c_str());
  for (const Case& c : cases) {
    SCOPED_TRACE("case %s", c.name.c_str());
    {
      std::unique_ptr<VulkanGraph> graph;
      ASSERT_EQ(build_graph(c.vgf, device, &graph, &why), Error::Ok);
      EXPECT_EQ(graph->staged_tensors(), options.staging ? c.inputs.size() + c.expected.size() : 0u);
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        std::memcpy(graph->input_data(i), c.inputs[i].bytes.data(), c.inputs[i].bytes.size());
      }
      for (int run = 0; run < 2; ++run) {
        ASSERT_EQ(graph->run(&why), Error::Ok);
      }
      for (size_t o = 0; o < c.expected.size(); ++o) {
        EXPECT_EQ(compare(c.expected[o], graph->output_data(o)).mismatches, 0u);
      }
    }  // the graph is destroyed under validation too
    std::printf("%-22s validation errors so far: %zu\n", c.name.c_str(), device->validation_error_count());
  }
  expect_no_validation_errors(*device);
  device.reset();
}

// The messenger works: a deliberate misuse is reported (so a silent layer cannot pass).
TEST(Validation, CatchesAMisuse) {
  DeviceOptions options;
  options.validation = true;
  std::shared_ptr<VulkanDevice> device;
  std::string why;
  ASSERT_EQ(VulkanDevice::create(options, &device, &why), Error::Ok);
  const size_t before = device->validation_error_count();
  // A bound tensor described with another shape than the SPIR-V graph declares.
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  Payload payload(cases[0].vgf);
  VgfModel model;
  ASSERT_EQ(parse_vgf(payload.data(), payload.size(), &model, &why), Error::Ok);
  TensorDescription& input = model.resources[model.inputs[0].resource];
  input.shape.back() *= 2;
  input.nbytes *= 2;
  input.element_count *= 2;
  std::unique_ptr<VulkanGraph> graph;
  const Error err = VulkanGraph::create(device, model, &graph, &why);
  std::printf("create: %s; validation errors: %zu\n", err == Error::Ok ? "ok" : why.c_str(),
              device->validation_error_count() - before);
  EXPECT_GT(device->validation_error_count(), before);
}

}  // namespace
}  // namespace test
}  // namespace vgf
}  // namespace etarm
