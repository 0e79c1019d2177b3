// VgfBackend through ExecuTorch's backend registry (the genuine libexecutorch.so): every
// case end to end, int64 narrowing, and the arguments it must refuse with InvalidArgument.
#include <cstdio>
#include <memory>
#include <vector>

#include <executorch/runtime/backend/interface.h>

#include "kernels/testing/harness.h"
#include "runtime/executorch_names.h"
#include "runtime/testing/delegate_instance.h"
#include "runtime/testing/executorch.h"
#include "runtime/vgf/test/test_cases.h"
#include "runtime/vgf/vgf_backend.h"

namespace etarm {
namespace vgf {
namespace test {
namespace {

using etarm::kernels::testing::TestTensor;

BackendInterface* backend() {
  return executorch::runtime::get_backend_class(kBackendId);
}

ScalarType dtype_of(uint32_t code) {
  switch (code) {
    case kInt8:
      return ScalarType::Char;
    case kInt16:
      return ScalarType::Short;
    case kInt32:
      return ScalarType::Int;
    default:
      return ScalarType::Float;
  }
}

std::vector<int32_t> sizes_of(const IoTensor& t) {
  return std::vector<int32_t>(t.shape.begin(), t.shape.end());
}

// One VgfBackend delegate, with the small pool a Method gives it.
struct Instance : etarm::testing::DelegateInstance {
  Instance() : DelegateInstance(kBackendId, 4096) {}
};

// A case's delegate arguments: its inputs (filled) and outputs, as ExecuTorch tensors.
struct Arguments {
  std::vector<std::unique_ptr<TestTensor>> tensors;
  std::vector<EValue> values;

  explicit Arguments(const Case& c) {
    for (const IoTensor& t : c.inputs) {
      tensors.push_back(std::make_unique<TestTensor>(dtype_of(t.dtype), sizes_of(t)));
      std::memcpy(tensors.back()->data<uint8_t>(), t.bytes.data(), t.bytes.size());
    }
    for (const IoTensor& t : c.expected) {
      tensors.push_back(std::make_unique<TestTensor>(dtype_of(t.dtype), sizes_of(t)));
    }
    for (auto& t : tensors) {
      values.emplace_back(t->tensor());
    }
  }
  std::vector<EValue*> pointers() {
    std::vector<EValue*> p;
    for (EValue& v : values) {
      p.push_back(&v);
    }
    return p;
  }
  // Replaces argument k (an input, or inputs + an output) by `tensor`.
  void replace(size_t k, std::unique_ptr<TestTensor> tensor) {
    tensors[k] = std::move(tensor);
    values[k] = EValue(tensors[k]->tensor());
  }
};

const Case* find_case(const std::vector<Case>& cases, const char* name) {
  for (const Case& c : cases) {
    if (c.name == name) {
      return &c;
    }
  }
  ADD_FAILURE("no case %s among the arguments", name);
  return nullptr;
}

TEST(Backend, IsRegistered) {
  EXPECT_EQ(registration_status(), Error::Ok);
  ASSERT_TRUE(backend() != nullptr);
  EXPECT_TRUE(backend()->is_available());
}

TEST(Backend, RunsEveryCase) {
  const std::vector<Case> cases = cases_from_args();
  ASSERT_GT(cases.size(), 0u);
  for (const Case& c : cases) {
    SCOPED_TRACE("case %s", c.name.c_str());
    Payload payload(c.vgf);
    Instance delegate;
    ASSERT_EQ(delegate.init(payload.data(), payload.size()), Error::Ok);
    Arguments args(c);
    ASSERT_EQ(delegate.execute(args.pointers()), Error::Ok);
    for (size_t o = 0; o < c.expected.size(); ++o) {
      SCOPED_TRACE("output %zu", o);
      EXPECT_EQ(compare(c.expected[o], args.tensors[c.inputs.size() + o]->data<uint8_t>()).mismatches, 0u);
    }
  }
}

TEST(Backend, CopiesAMisalignedPayload) {
  const std::vector<Case> cases = cases_from_args();
  const Case* c = find_case(cases, "mlp_int");
  ASSERT_TRUE(c != nullptr);
  Payload payload(c->vgf, 1);
  Instance delegate;
  ASSERT_EQ(delegate.init(payload.data(), payload.size()), Error::Ok);
  Arguments args(*c);
  ASSERT_EQ(delegate.execute(args.pointers()), Error::Ok);
  EXPECT_EQ(compare(c->expected[0], args.tensors[1]->data<uint8_t>()).mismatches, 0u);
}

// int64 arguments bind to the graph's int32 tensors: narrowed in, widened out.
TEST(Backend, NarrowsInt64Inputs) {
  const std::vector<Case> cases = cases_from_args();
  const Case* c = find_case(cases, "integer_arithmetic_fp");
  ASSERT_TRUE(c != nullptr);
  ASSERT_EQ(c->inputs[0].dtype, static_cast<uint32_t>(kInt32));
  Payload payload(c->vgf);
  Instance delegate;
  ASSERT_EQ(delegate.init(payload.data(), payload.size()), Error::Ok);
  std::vector<std::unique_ptr<TestTensor>> tensors;
  std::vector<EValue> values;
  for (const auto* list : {&c->inputs, &c->expected}) {
    for (const IoTensor& t : *list) {
      tensors.push_back(std::make_unique<TestTensor>(ScalarType::Long, sizes_of(t)));
      if (list == &c->inputs) {
        for (size_t k = 0; k < t.bytes.size() / 4; ++k) {
          int32_t v;
          std::memcpy(&v, t.bytes.data() + 4 * k, 4);
          tensors.back()->data<int64_t>()[k] = v;
        }
      }
    }
  }
  for (auto& t : tensors) {
    values.emplace_back(t->tensor());
  }
  std::vector<EValue*> args;
  for (EValue& v : values) {
    args.push_back(&v);
  }
  ASSERT_EQ(delegate.execute(args), Error::Ok);
  const IoTensor& want = c->expected[0];
  const int64_t* got = tensors[c->inputs.size()]->data<int64_t>();
  size_t mismatches = 0;
  for (size_t k = 0; k < want.bytes.size() / 4; ++k) {
    int32_t v;
    std::memcpy(&v, want.bytes.data() + 4 * k, 4);
    mismatches += got[k] != v;
  }
  EXPECT_EQ(mismatches, 0u);
  // A value outside int32 is refused, not wrapped.
  tensors[0]->data<int64_t>()[3] = int64_t{1} << 40;
  EXPECT_EQ(delegate.execute(args), Error::InvalidArgument);
}

TEST(Backend, RefusesWrongArguments) {
  const std::vector<Case> cases = cases_from_args();
  const Case* c = find_case(cases, "sub_fp");  // two [1, 8, 16, 16] float inputs, one output
  ASSERT_TRUE(c != nullptr);
  Payload payload(c->vgf);
  Instance delegate;
  ASSERT_EQ(delegate.init(payload.data(), payload.size()), Error::Ok);
  const std::vector<int32_t> shape = sizes_of(c->inputs[0]);
  {
    SCOPED_TRACE("one argument too few");
    Arguments args(*c);
    std::vector<EValue*> p = args.pointers();
    p.pop_back();
    EXPECT_EQ(delegate.execute(p), Error::InvalidArgument);
  }
  {
    SCOPED_TRACE("an input that is not a tensor");
    Arguments args(*c);
    args.values[1] = EValue(static_cast<int64_t>(3));
    EXPECT_EQ(delegate.execute(args.pointers()), Error::InvalidArgument);
  }
  {
    SCOPED_TRACE("a null argument");
    Arguments args(*c);
    std::vector<EValue*> p = args.pointers();
    p[0] = nullptr;
    EXPECT_EQ(delegate.execute(p), Error::InvalidArgument);
  }
  const struct {
    const char* what;
    size_t argument;
    ScalarType dtype;
    std::vector<int32_t> sizes;
    std::vector<uint8_t> dim_order;
  } wrong[] = {
      {"int32 input", 0, ScalarType::Int, shape, {}},
      {"int64 input for a float tensor", 1, ScalarType::Long, shape, {}},
      {"half input", 0, ScalarType::Half, shape, {}},
      {"transposed shape", 0, ScalarType::Float, {1, 16, 16, 8}, {}},
      {"rank 3", 1, ScalarType::Float, {8, 16, 16}, {}},
      {"one element more", 0, ScalarType::Float, {1, 8, 16, 17}, {}},
      {"channels-last input", 0, ScalarType::Float, shape, {0, 2, 3, 1}},
      {"int8 output", 2, ScalarType::Char, shape, {}},
      {"output of another shape", 2, ScalarType::Float, {2, 8, 16, 16}, {}},
      {"channels-last output", 2, ScalarType::Float, shape, {0, 2, 3, 1}},
  };
  for (const auto& w : wrong) {
    SCOPED_TRACE("%s", w.what);
    Arguments args(*c);
    args.replace(w.argument, std::make_unique<TestTensor>(w.dtype, w.sizes, w.dim_order));
    EXPECT_EQ(delegate.execute(args.pointers()), Error::InvalidArgument);
  }
  // The delegate still runs after refusing.
  Arguments args(*c);
  ASSERT_EQ(delegate.execute(args.pointers()), Error::Ok);
  EXPECT_EQ(compare(c->expected[0], args.tensors[2]->data<uint8_t>()).mismatches, 0u);
}

// A Vulkan tensor has at least one dimension: the graph holds rank-0 values as shape [1], and
// rank-0 arguments bind to those (one element); other shapes of one element do not.
TEST(Backend, BindsRankZeroArgumentsToShapeOne) {
  const std::vector<Case> cases = cases_from_args();
  const Case* c = find_case(cases, "scalars_vgf");  // x [2, 3], s []; (x * s).sum() [1], x - s [2, 3]
  ASSERT_TRUE(c != nullptr);
  ASSERT_EQ(c->inputs[1].shape.size(), 0u);
  ASSERT_EQ(c->expected[0].shape, std::vector<int64_t>{1});
  Payload payload(c->vgf);
  Instance delegate;
  ASSERT_EQ(delegate.init(payload.data(), payload.size()), Error::Ok);
  for (const bool rank_zero_output : {false, true}) {
    SCOPED_TRACE("rank-0 output: %d", rank_zero_output);
    Arguments args(*c);
    if (rank_zero_output) {
      args.replace(2, std::make_unique<TestTensor>(ScalarType::Float, std::vector<int32_t>{}));
    }
    ASSERT_EQ(delegate.execute(args.pointers()), Error::Ok);
    for (size_t o = 0; o < c->expected.size(); ++o) {
      EXPECT_EQ(compare(c->expected[o], args.tensors[2 + o]->data<uint8_t>()).mismatches, 0u);
    }
  }
  for (const auto& sizes : {std::vector<int32_t>{1, 1}, std::vector<int32_t>{2}}) {
    Arguments args(*c);
    args.replace(1, std::make_unique<TestTensor>(ScalarType::Float, sizes));
    EXPECT_EQ(delegate.execute(args.pointers()), Error::InvalidArgument);
  }
}

// Two delegates at once share the device; destroying one leaves the other working.
TEST(Backend, DelegatesShareTheDevice) {
  const std::vector<Case> cases = cases_from_args();
  const Case* a = find_case(cases, "conv_relu_int");
  const Case* b = find_case(cases, "two_outputs_fp");
  ASSERT_TRUE(a != nullptr && b != nullptr);
  Payload pa(a->vgf);
  Payload pb(b->vgf);
  auto first = std::make_unique<Instance>();
  Instance second;
  ASSERT_EQ(first->init(pa.data(), pa.size()), Error::Ok);
  ASSERT_EQ(second.init(pb.data(), pb.size()), Error::Ok);
  first.reset();
  Arguments args(*b);
  ASSERT_EQ(second.execute(args.pointers()), Error::Ok);
  for (size_t o = 0; o < b->expected.size(); ++o) {
    EXPECT_EQ(compare(b->expected[o], args.tensors[b->inputs.size() + o]->data<uint8_t>()).mismatches, 0u);
  }
}

}  // namespace
}  // namespace test
}  // namespace vgf
}  // namespace etarm
