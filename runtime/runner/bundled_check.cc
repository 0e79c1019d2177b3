#include "runtime/runner/bundled_check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>

#include "runtime/executorch_names.h"
#include "runtime/runner/bundled_program.h"

namespace etarm {
namespace runner {

namespace {

constexpr size_t kMaxRank = 16;

// Hands one test case's input to the method: a tensor over the bundle's data (the method
// copies it into its planned input, or reads it in place), or a scalar it checks.
Error set_input(Method& method, const BundledValue& value, size_t index) {
  switch (value.kind) {
    case BundledValue::Kind::kInt:
      return method.set_input(EValue(value.int_value), index);
    case BundledValue::Kind::kBool:
      return method.set_input(EValue(value.bool_value), index);
    case BundledValue::Kind::kDouble:
      return method.set_input(EValue(value.double_value), index);
    case BundledValue::Kind::kTensor:
      break;
  }
  const BundledTensor& t = value.tensor;
  const size_t rank = t.sizes.size();  // at most kMaxRank: BundledProgram::load checked
  TensorImpl::DimOrderType dim_order[kMaxRank];
  TensorImpl::StridesType strides[kMaxRank];
  for (size_t d = 0; d < rank; ++d) dim_order[d] = t.dim_order.size() != 0 ? t.dim_order[d] : static_cast<uint8_t>(d);
  // Strides follow the dim order (contiguous in that order).
  size_t stride = 1;
  for (size_t k = rank; k-- > 0;) {
    strides[dim_order[k]] = static_cast<TensorImpl::StridesType>(stride);
    stride *= static_cast<size_t>(t.sizes[dim_order[k]]);
  }
  TensorImpl impl(t.scalar_type, static_cast<ssize_t>(rank), const_cast<TensorImpl::SizesType*>(t.sizes.data()),
                  const_cast<uint8_t*>(t.data), dim_order, strides);
  return method.set_input(EValue(Tensor(&impl)), index);
}

// Element k of `data` (a tensor of `type`, one of the dtypes BundledProgram accepts).
double float_at(ScalarType type, const void* data, size_t k) {
  return type == ScalarType::Double ? static_cast<const double*>(data)[k]
                                    : static_cast<double>(static_cast<const float*>(data)[k]);
}
int64_t integer_at(ScalarType type, const void* data, size_t k) {
  switch (type) {
    case ScalarType::Byte:
      return static_cast<const uint8_t*>(data)[k];
    case ScalarType::Char:
      return static_cast<const int8_t*>(data)[k];
    case ScalarType::Short:
      return static_cast<const int16_t*>(data)[k];
    case ScalarType::Int:
      return static_cast<const int32_t*>(data)[k];
    case ScalarType::Long:
      return static_cast<const int64_t*>(data)[k];
    default:  // Bool
      return static_cast<const uint8_t*>(data)[k] != 0;
  }
}

struct Comparison {
  double max_diff = 0;
  size_t outside = 0;
  size_t total = 0;
};

// Adds output `index` to `c`; false (printed) when it cannot be compared with `expected`.
bool compare(size_t test_case, size_t index, const EValue& got, const BundledValue& expected, const Tolerance& tol,
             Comparison* c) {
  if (!got.isTensor() || expected.kind != BundledValue::Kind::kTensor) {
    std::printf("test case %zu: output %zu: only tensor outputs are compared\n", test_case, index);
    return false;
  }
  const Tensor& out = got.toTensor();
  const BundledTensor& ref = expected.tensor;
  bool same_shape = out.dim() == static_cast<ssize_t>(ref.sizes.size());
  for (size_t d = 0; same_shape && d < ref.sizes.size(); ++d) same_shape = out.size(d) == ref.sizes[d];
  if (out.scalar_type() != ref.scalar_type || !same_shape) {
    std::printf("test case %zu: output %zu is %s of %zd dims, expected %s of %zu dims (or the sizes differ)\n",
                test_case, index, executorch::runtime::toString(out.scalar_type()), static_cast<ssize_t>(out.dim()),
                executorch::runtime::toString(ref.scalar_type), ref.sizes.size());
    return false;
  }
  const bool is_float = ref.scalar_type == ScalarType::Float || ref.scalar_type == ScalarType::Double;
  for (size_t k = 0; k < ref.numel; ++k) {
    double diff;
    bool within;
    if (is_float) {
      const double a = float_at(ref.scalar_type, out.const_data_ptr(), k);
      const double b = float_at(ref.scalar_type, ref.data, k);
      const bool same = a == b || (std::isnan(a) && std::isnan(b));  // equal infinities and NaNs match
      diff = same ? 0 : std::fabs(a - b);
      within = same || diff <= tol.atol + tol.rtol * std::fabs(b);
    } else {
      const int64_t a = integer_at(ref.scalar_type, out.const_data_ptr(), k);
      const int64_t b = integer_at(ref.scalar_type, ref.data, k);
      diff = std::fabs(static_cast<double>(a) - static_cast<double>(b));
      within = a == b;
    }
    if (!(diff <= c->max_diff)) c->max_diff = diff;  // also takes a NaN difference
    if (!within) ++c->outside;
  }
  c->total += ref.numel;
  return true;
}

// Runs test case `i`; 0 when it passed, 1 when it failed, -1 when the runtime reported an Error
// (printed).
int run_test_case(Runner& runner, const BundledProgram& bundle, size_t i, bool quiet) {
  Method& method = runner.method();
  if (bundle.num_inputs(i) != method.inputs_size() || bundle.num_expected_outputs(i) != method.outputs_size()) {
    std::printf("test case %zu: %zu inputs and %zu expected outputs, the method has %zu and %zu\n", i,
                bundle.num_inputs(i), bundle.num_expected_outputs(i), method.inputs_size(), method.outputs_size());
    report_error("set inputs", Error::InvalidArgument);
    return -1;
  }
  for (size_t k = 0; k < bundle.num_inputs(i); ++k) {
    const Error err = set_input(method, bundle.input(i, k), k);
    if (err != Error::Ok) {
      std::printf("test case %zu: input %zu does not suit the method\n", i, k);
      report_error("set inputs", err);
      return -1;
    }
  }
  const Error err = runner.execute();
  if (err != Error::Ok) {
    report_error("execute", err);
    return -1;
  }
  std::printf("test case %zu:\n", i);
  if (!quiet) runner.print_outputs();
  runner.print_report();

  const Tolerance tol = bundle.tolerance();
  Comparison c;
  bool comparable = true;
  for (size_t k = 0; k < method.outputs_size(); ++k) {
    comparable = compare(i, k, method.get_output(k), bundle.expected_output(i, k), tol, &c) && comparable;
  }
  std::printf("test case %zu: max |got - expected| = %.6g, %zu of %zu values outside tolerance\n", i, c.max_diff,
              c.outside, c.total);
  return comparable && c.outside == 0 ? 0 : 1;
}

}  // namespace

int run_bundle(Runner& runner, const void* data, size_t size, bool quiet) {
  auto bundle = BundledProgram::load(data, size);
  if (!bundle.ok()) return report_error("read the bundle", bundle.error());
  const Span<const uint8_t> program = bundle->program();
  executorch::extension::BufferDataLoader loader(program.data(), program.size());
  const Error err = runner.load(&loader, kBundledMethod);
  if (err != Error::Ok) return report_error("load", err);

  const Tolerance tol = bundle->tolerance();
  const size_t cases = bundle->num_test_cases();
  std::printf("bundle: %zu test case%s of %s, program %zu bytes, atol %.6g rtol %.6g (%s)\n", cases,
              cases == 1 ? "" : "s", kBundledMethod, program.size(), tol.atol, tol.rtol,
              tol.from_bundle ? "from the bundle" : "ExecuTorch's defaults: the bundle has none");
  if (cases == 0) {
    std::printf("FAILED: the bundle has no test case of %s\n", kBundledMethod);
    return 1;
  }
  bool pass = true;
  for (size_t i = 0; i < cases; ++i) {
    const int result = run_test_case(runner, *bundle, i, quiet);
    if (result < 0) return 1;
    pass = pass && result == 0;
  }
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

}  // namespace runner
}  // namespace etarm
