#include "kernels/testing/harness.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

namespace etarm {
namespace kernels {
namespace testing {
namespace {

using executorch::runtime::BoxedEvalueList;
using executorch::runtime::Span;

std::vector<uint8_t> contiguous_order(size_t rank) {
  std::vector<uint8_t> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = static_cast<uint8_t>(d);
  return order;
}

// Strides for a dim order: the innermost dim of the layout has stride 1.
std::vector<int32_t> strides_for(const std::vector<int32_t>& sizes, const std::vector<uint8_t>& order) {
  std::vector<int32_t> strides(sizes.size());
  int32_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    strides[order[i]] = stride;
    stride *= sizes[order[i]];
  }
  return strides;
}

size_t count(const std::vector<int32_t>& sizes) {
  size_t n = 1;
  for (int32_t s : sizes) n *= static_cast<size_t>(s);
  return n;
}

// splitmix32-style hash of (seed, i): the same sequence on every platform.
uint32_t random_bits(uint32_t seed, uint32_t i) {
  uint32_t z = seed * 0x9e3779b9u + i * 0x85ebca6bu + 0x632be59bu;
  z = (z ^ (z >> 16)) * 0x7feb352du;
  z = (z ^ (z >> 15)) * 0x846ca68bu;
  return z ^ (z >> 16);
}

bool is_floating(ScalarType t) {
  return t == ScalarType::Float || t == ScalarType::Double;
}

}  // namespace

void store_value(TestTensor& t, const Index& i, double v) {
  switch (t.dtype()) {
    case ScalarType::Float: t.at<float>(i) = static_cast<float>(v); break;
    case ScalarType::Double: t.at<double>(i) = v; break;
    case ScalarType::Char: t.at<int8_t>(i) = static_cast<int8_t>(v); break;
    case ScalarType::Byte: t.at<uint8_t>(i) = static_cast<uint8_t>(v); break;
    case ScalarType::Short: t.at<int16_t>(i) = static_cast<int16_t>(v); break;
    case ScalarType::Int: t.at<int32_t>(i) = static_cast<int32_t>(v); break;
    case ScalarType::Long: t.at<int64_t>(i) = static_cast<int64_t>(v); break;
    case ScalarType::Bool: t.at<bool>(i) = v != 0; break;
    default: ADD_FAILURE("TestTensor: no values for dtype %s", executorch::runtime::toString(t.dtype()));
  }
}

namespace {

int format_index(char* buf, size_t n, const Index& i) {
  int used = std::snprintf(buf, n, "[");
  for (int d = 0; d < i.rank && used > 0 && static_cast<size_t>(used) < n; ++d) {
    used += std::snprintf(buf + used, n - used, d ? ", %d" : "%d", static_cast<int>(i.at[d]));
  }
  if (used > 0 && static_cast<size_t>(used) < n) used += std::snprintf(buf + used, n - used, "]");
  return used;
}

void format_shape(char* buf, size_t n, const std::vector<int32_t>& sizes) {
  Index i{};
  i.rank = static_cast<int>(sizes.size());
  for (int d = 0; d < i.rank; ++d) i.at[d] = sizes[d];
  format_index(buf, n, i);
}

}  // namespace

TestTensor::TestTensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order)
    : sizes_(std::move(sizes)),
      dim_order_(dim_order.empty() ? contiguous_order(sizes_.size()) : std::move(dim_order)),
      strides_(strides_for(sizes_, dim_order_)),
      storage_((count(sizes_) * executorch::runtime::elementSize(dtype) + 7) / 8 + 1, 0),
      impl_(dtype, static_cast<ssize_t>(sizes_.size()), sizes_.data(), storage_.data(), dim_order_.data(),
            strides_.data()) {}

size_t TestTensor::numel() const {
  return count(sizes_);
}

Index TestTensor::make_index(std::initializer_list<int32_t> coordinates) const {
  Index i{};
  i.rank = static_cast<int>(coordinates.size());
  int d = 0;
  for (int32_t c : coordinates) i.at[d++] = c;
  return i;
}

size_t TestTensor::offset(const Index& index) const {
  size_t at = 0;
  for (int d = 0; d < dim(); ++d) at += static_cast<size_t>(index.at[d]) * strides_[d];
  return at;
}

void fill_uniform(TestTensor& t, uint32_t seed, double lo, double hi) {
  uint32_t n = 0;
  for_each_index(t, [&](const Index& i) {
    const uint32_t bits = random_bits(seed, n++);
    if (is_floating(t.dtype())) {
      store_value(t, i, lo + (hi - lo) * (bits >> 8) * (1.0 / 16777216.0));
    } else {
      const double span = std::floor(hi) - std::ceil(lo) + 1;
      store_value(t, i, std::ceil(lo) + std::floor((bits >> 8) * (1.0 / 16777216.0) * span));
    }
  });
}

double broadcast_value(const TestTensor& t, const Index& index) {
  Index own{};
  own.rank = t.dim();
  const int lead = index.rank - t.dim();
  for (int d = 0; d < t.dim(); ++d) own.at[d] = t.sizes()[d] == 1 ? 0 : index.at[lead + d];
  return value_at(t, own);
}

double value_at(const TestTensor& t, const Index& i) {
  switch (t.dtype()) {
    case ScalarType::Float: return t.at<float>(i);
    case ScalarType::Double: return t.at<double>(i);
    case ScalarType::Char: return t.at<int8_t>(i);
    case ScalarType::Byte: return t.at<uint8_t>(i);
    case ScalarType::Short: return t.at<int16_t>(i);
    case ScalarType::Int: return t.at<int32_t>(i);
    case ScalarType::Long: return static_cast<double>(t.at<int64_t>(i));
    case ScalarType::Bool: return t.at<bool>(i) ? 1 : 0;
    default:
      ADD_FAILURE("value_at: dtype %s", executorch::runtime::toString(t.dtype()));
      return NAN;
  }
}

EValue* KernelCall::add(EValue v) {
  if (count_ == kMaxArgs) {
    overflow_ = true;
    return nullptr;
  }
  values_[count_] = v;
  stack_[count_] = &values_[count_];
  return stack_[count_++];
}

KernelCall& KernelCall::tensor(TestTensor& t) {
  if (add(EValue(t.tensor())) != nullptr && num_metas_ < kMaxArgs) {
    metas_[num_metas_++] = executorch::runtime::TensorMeta(
        t.dtype(), Span<executorch::aten::DimOrderType>(const_cast<uint8_t*>(t.dim_order().data()), t.dim_order().size()));
  }
  return *this;
}

KernelCall& KernelCall::out(TestTensor& t) {
  tensor(t);
  returned_ = count_ > 0 ? stack_[count_ - 1] : nullptr;
  return *this;
}

KernelCall& KernelCall::integer(int64_t v) {
  add(EValue(v));
  return *this;
}

KernelCall& KernelCall::real(double v) {
  add(EValue(v));
  return *this;
}

KernelCall& KernelCall::boolean(bool v) {
  add(EValue(v));
  return *this;
}

KernelCall& KernelCall::reals(std::initializer_list<double> list) {
  if (num_real_lists_ == kMaxLists || list.size() > kMaxListItems - num_reals_) {
    overflow_ = true;
    return *this;
  }
  double* first = &reals_[num_reals_];
  for (double v : list) {
    reals_[num_reals_++] = v;
  }
  auto* boxed = &real_lists_[num_real_lists_++];
  *boxed = executorch::aten::ArrayRef<double>(first, list.size());
  add(EValue(boxed));
  return *this;
}

KernelCall& KernelCall::none() {
  add(EValue());
  return *this;
}

KernelCall& KernelCall::ints(const int64_t* list, size_t n) {
  if (num_int_lists_ == kMaxLists || n > kMaxListItems - num_items_) {
    overflow_ = true;
    return *this;
  }
  const size_t first = num_items_;
  for (size_t i = 0; i < n; ++i) {
    items_[num_items_] = EValue(list[i]);
    item_ptrs_[num_items_] = &items_[num_items_];
    ++num_items_;
  }
  auto* boxed = &int_lists_[num_int_lists_++];
  *boxed = BoxedEvalueList<int64_t>(&item_ptrs_[first], &unboxed_ints_[first], static_cast<int>(n));
  add(EValue(boxed));
  return *this;
}

KernelCall& KernelCall::tensors(std::initializer_list<TestTensor*> list) {
  if (num_tensor_lists_ == kMaxLists || list.size() > kMaxListItems - num_items_) {
    overflow_ = true;
    return *this;
  }
  const size_t first = num_items_;
  for (TestTensor* t : list) {
    items_[num_items_] = EValue(t->tensor());
    item_ptrs_[num_items_] = &items_[num_items_];
    ++num_items_;
  }
  auto* boxed = &tensor_lists_[num_tensor_lists_++];
  *boxed = BoxedEvalueList<Tensor>(&item_ptrs_[first], reinterpret_cast<Tensor*>(unboxed_tensors_) + first,
                                   static_cast<int>(list.size()));
  add(EValue(boxed));
  return *this;
}

Error KernelCall::run() {
  if (overflow_) {
    ADD_FAILURE("KernelCall(%s): more arguments or list items than the harness holds", op_);
    return Error::InvalidArgument;
  }
  if (returned_ == nullptr || count_ == kMaxArgs) {
    ADD_FAILURE("KernelCall(%s): no out() tensor, or no room for the returned value", op_);
    return Error::InvalidArgument;
  }
  auto op = executorch::runtime::get_op_function_from_registry(op_, {metas_, num_metas_});
  if (!op.ok()) {
    return op.error();
  }
  EValue* stack[kMaxArgs];
  std::memcpy(stack, stack_, count_ * sizeof(EValue*));
  stack[count_] = returned_;
  // As a Method does, the kernel gets a temporary allocator (CMSIS-NN's scratch buffers), empty at each call.
  alignas(16) static uint8_t temp_memory[kTempBytes];
  executorch::runtime::MemoryAllocator temp(sizeof temp_memory, temp_memory);
  executorch::runtime::KernelRuntimeContext context(nullptr, &temp);
  (*op)(context, Span<EValue*>(stack, count_ + 1));
  return context.failure_state();
}

bool expect_tensor(const char* file, int line, const char* expression, const TestTensor& got, const TestTensor& want,
                   double atol, double rtol) {
  char got_shape[128];
  char want_shape[128];
  format_shape(got_shape, sizeof got_shape, got.sizes());
  format_shape(want_shape, sizeof want_shape, want.sizes());
  if (got.dtype() != want.dtype() || got.sizes() != want.sizes()) {
    etarm::testing::add_failure(file, line, "%s: %s %s, expected %s %s", expression,
                                executorch::runtime::toString(got.dtype()), got_shape,
                                executorch::runtime::toString(want.dtype()), want_shape);
    return false;
  }
  const bool exact = !is_floating(want.dtype());
  size_t mismatches = 0;
  double worst = -1;
  Index worst_index{};
  char first[3][160];
  for_each_index(want, [&](const Index& i) {
    const double g = value_at(got, i);
    const double w = value_at(want, i);
    const double diff = std::fabs(g - w);
    const bool same = exact ? g == w : (g == w || (std::isnan(g) && std::isnan(w)) || diff <= atol + rtol * std::fabs(w));
    if (same) return;
    if (mismatches < 3) {
      char where[96];
      format_index(where, sizeof where, i);
      std::snprintf(first[mismatches], sizeof first[0], "at %s: got %.9g, expected %.9g", where, g, w);
    }
    ++mismatches;
    if (!(diff <= worst)) {
      worst = diff;
      worst_index = i;
    }
  });
  if (mismatches == 0) return true;
  char where[96];
  format_index(where, sizeof where, worst_index);
  char rule[64];
  if (exact) {
    std::snprintf(rule, sizeof rule, "exact");
  } else {
    std::snprintf(rule, sizeof rule, "tolerance %g + %g * |expected|", atol, rtol);
  }
  etarm::testing::add_failure(file, line, "%s: %zu of %zu %s elements differ (%s); largest |difference| %.9g at %s",
                              expression, mismatches, want.numel(), executorch::runtime::toString(want.dtype()), rule,
                              worst, where);
  for (size_t k = 0; k < mismatches && k < 3; ++k) std::printf("    %s\n", first[k]);
  return false;
}

}  // namespace testing
}  // namespace kernels
}  // namespace etarm
