// The kernel test harness: runs ONE kernel, found by its operator name in the runtime's
// kernel registry as a Method would find it, on tensors the test builds, and compares the
// result with a reference the test computes (exactly for integers, within a tolerance for
// floats). Works on the host (the genuine libexecutorch.so or runtime/core) and on boards
// (runtime/core in QEMU); TEST cases come from runtime/testing. docs/kernels.md.
//
//   TestTensor a(ScalarType::Float, {2, 3}), b(ScalarType::Float, {3}), out(ScalarType::Float, {2, 3});
//   fill_uniform(a, 1, -2, 2);
//   fill_uniform(b, 2, -2, 2);
//   ASSERT_EQ(KernelCall("aten::add.out").tensor(a).tensor(b).real(1.0).out(out).run(), Error::Ok);
//   TestTensor want(ScalarType::Float, {2, 3});
//   compute(want, [&](const Index& i) { return broadcast_value(a, i) + broadcast_value(b, i); });
//   EXPECT_TENSOR_CLOSE(out, want, 1e-6, 1e-6);
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/util/tensor_dimension_limit.h>
#include <executorch/runtime/kernel/operator_registry.h>

#include "runtime/testing/executorch.h"
#include "runtime/testing/test.h"

namespace etarm {
namespace kernels {
namespace testing {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;

// A logical position in a tensor: one coordinate per dimension.
struct Index {
  int32_t at[executorch::runtime::kTensorDimensionLimit];
  int rank;
  int32_t operator[](int d) const {
    return at[d];
  }
};

// A tensor that owns its sizes, dim order, strides and zeroed data. The dim order is the
// memory layout (outermost first): empty means contiguous, {0, 2, 3, 1} channels-last.
// Not copyable: the runtime's TensorImpl points into it.
class TestTensor {
 public:
  TestTensor(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> dim_order = {});
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  Tensor tensor() {
    return Tensor(&impl_);
  }
  ScalarType dtype() const {
    return impl_.scalar_type();
  }
  int dim() const {
    return static_cast<int>(sizes_.size());
  }
  const std::vector<int32_t>& sizes() const {
    return sizes_;
  }
  const std::vector<uint8_t>& dim_order() const {
    return dim_order_;
  }
  size_t numel() const;

  // The element at a logical index (any layout).
  template <typename T>
  T& at(const Index& index) {
    return data<T>()[offset(index)];
  }
  template <typename T>
  const T& at(const Index& index) const {
    return data<T>()[offset(index)];
  }
  template <typename T>
  T& at(std::initializer_list<int32_t> index) {
    return at<T>(make_index(index));
  }

  // Raw storage in memory order.
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(storage_.data());
  }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(storage_.data());
  }

  // Sets every element in logical (row-major) order; the count must match numel().
  template <typename T>
  void set(std::initializer_list<T> values);

  Index make_index(std::initializer_list<int32_t> coordinates) const;
  size_t offset(const Index& index) const;

 private:
  std::vector<int32_t> sizes_;
  std::vector<uint8_t> dim_order_;
  std::vector<int32_t> strides_;
  std::vector<uint64_t> storage_;  // 8-byte aligned
  executorch::aten::TensorImpl impl_;
};

// Calls fn(index) for every logical index of a shape, row-major (the last dim fastest).
template <typename Fn>
void for_each_index(const std::vector<int32_t>& sizes, Fn fn) {
  Index index{};
  index.rank = static_cast<int>(sizes.size());
  for (int32_t s : sizes) {
    if (s == 0) return;
  }
  while (true) {
    fn(static_cast<const Index&>(index));
    int d = index.rank - 1;
    for (; d >= 0; --d) {
      if (++index.at[d] < sizes[d]) break;
      index.at[d] = 0;
    }
    if (d < 0) return;
  }
}

template <typename Fn>
void for_each_index(const TestTensor& t, Fn fn) {
  for_each_index(t.sizes(), fn);
}

template <typename T>
void TestTensor::set(std::initializer_list<T> values) {
  if (values.size() != numel()) {
    ADD_FAILURE("TestTensor::set: %zu values for %zu elements", values.size(), numel());
    return;
  }
  const T* v = values.begin();
  for_each_index(*this, [&](const Index& i) { at<T>(i) = *v++; });
}

// Deterministic pseudo-random values (the same on every platform), element by element in
// logical order: floats uniform in [lo, hi), integers uniform in [lo, hi] (any dtype).
void fill_uniform(TestTensor& t, uint32_t seed, double lo, double hi);

// The value of any numeric element as a double (reference computations in one type), and
// the element an output index of a broadcast (numpy rules) reads: the tensor's dims align
// with the last dims of `index`, and a dim of size 1 repeats.
double value_at(const TestTensor& t, const Index& index);
double broadcast_value(const TestTensor& t, const Index& index);

// Stores a double into an element of any numeric dtype (a C++ conversion: truncation
// toward zero for integers).
void store_value(TestTensor& t, const Index& index, double v);

// The reference: sets every element of `t` to fn(index), a double.
template <typename Fn>
void compute(TestTensor& t, Fn fn) {
  for_each_index(t, [&](const Index& i) { store_value(t, i, fn(i)); });
}

// One kernel call: the arguments in schema order, the out tensor last through out(), then
// run(). As in a Method, the kernel's stack is the arguments followed by the returned value
// (the out tensor's EValue again). Arguments refer to the test's tensors, which must
// outlive the call; lists are boxed like the runtime boxes them.
class KernelCall {
 public:
  explicit KernelCall(const char* op) : op_(op) {}
  KernelCall(const KernelCall&) = delete;
  KernelCall& operator=(const KernelCall&) = delete;

  KernelCall& tensor(TestTensor& t);
  KernelCall& out(TestTensor& t);  // the out argument, also returned
  KernelCall& tensors(std::initializer_list<TestTensor*> list);
  KernelCall& integer(int64_t v);
  KernelCall& real(double v);
  KernelCall& boolean(bool v);
  KernelCall& ints(std::initializer_list<int64_t> list) {
    return ints(list.begin(), list.size());
  }
  KernelCall& ints(const std::vector<int64_t>& list) {
    return ints(list.data(), list.size());
  }
  KernelCall& reals(std::initializer_list<double> list);  // a float[] argument
  KernelCall& none();
  KernelCall& dtype(ScalarType t) {
    return integer(static_cast<int64_t>(t));
  }

  // Finds the kernel for the op and the tensor arguments' dtypes and dim orders, calls it
  // once and returns the error it reported (KernelRuntimeContext::fail), OperatorMissing if
  // the registry has none, InvalidArgument if the call had too many arguments.
  Error run();

 private:
  static constexpr size_t kMaxArgs = 20;  // the _s4 depthwise convolution passes 15 arguments, out, and out again
  static constexpr size_t kTempBytes = 16 * 1024;  // the kernel's temporary memory per call
  static constexpr size_t kMaxListItems = 32;
  static constexpr size_t kMaxLists = 6;
  EValue* add(EValue v);
  KernelCall& ints(const int64_t* list, size_t n);

  const char* op_;
  bool overflow_ = false;
  EValue* returned_ = nullptr;
  EValue values_[kMaxArgs];
  EValue* stack_[kMaxArgs] = {};
  size_t count_ = 0;
  executorch::runtime::TensorMeta metas_[kMaxArgs];
  size_t num_metas_ = 0;
  // List items: boxed values and the space the runtime unboxes them into.
  EValue items_[kMaxListItems];
  EValue* item_ptrs_[kMaxListItems] = {};
  size_t num_items_ = 0;
  int64_t unboxed_ints_[kMaxListItems] = {};
  double reals_[kMaxListItems] = {};  // float[] arguments: an EValue points at an ArrayRef<double>
  size_t num_reals_ = 0;
  executorch::aten::ArrayRef<double> real_lists_[kMaxLists];
  size_t num_real_lists_ = 0;
  alignas(Tensor) unsigned char unboxed_tensors_[kMaxListItems * sizeof(Tensor)];  // Tensor has no default
  executorch::runtime::BoxedEvalueList<int64_t> int_lists_[kMaxLists];
  executorch::runtime::BoxedEvalueList<Tensor> tensor_lists_[kMaxLists];
  size_t num_int_lists_ = 0;
  size_t num_tensor_lists_ = 0;
};

// Compares a kernel's output with the reference: same dtype and shape, then every element
// (in logical order) exactly for integers and bool, and within atol + rtol * |want| for
// floating point (NaN matches NaN). Reports the count of mismatches, the worst one and the
// first few, with their indices. Returns whether they matched.
bool expect_tensor(const char* file, int line, const char* expression, const TestTensor& got, const TestTensor& want,
                   double atol, double rtol);

}  // namespace testing
}  // namespace kernels
}  // namespace etarm

#define EXPECT_TENSOR_EQ(got, want) ::etarm::kernels::testing::expect_tensor(__FILE__, __LINE__, #got, got, want, 0, 0)
#define EXPECT_TENSOR_CLOSE(got, want, atol, rtol) \
  ::etarm::kernels::testing::expect_tensor(__FILE__, __LINE__, #got, got, want, atol, rtol)
