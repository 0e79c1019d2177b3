#include "runtime/runner/bundled_program.h"

#include <cmath>

#include <executorch/runtime/platform/log.h>

namespace etarm {
namespace runner {

using executorch::aten::ScalarType;
using executorch::runtime::Error;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace {

// Field slots of bundled_program_schema.fbs's tables (a union takes two: type, then value).
namespace bundle {
enum : unsigned { version = 0, method_test_suites, program };
}
namespace suite {
enum : unsigned { method_name = 0, test_cases };
}
namespace test_case {
enum : unsigned { inputs = 0, expected_outputs };
}
namespace value {
enum : unsigned { val_type = 0, val };
}
namespace tensor {
enum : unsigned { scalar_type = 0, sizes, data, dim_order };
}
// Int, Bool and Double hold their one field in slot 0.
constexpr unsigned kOnlyField = 0;
// ValueUnion's members, by type byte.
enum class ValueType : uint8_t { kNone = 0, kTensor, kInt, kBool, kDouble };

// ExecuTorch's own defaults (devtools/bundled_program: verify_method_outputs) for bundles that
// carry no tolerance.
constexpr double kDefaultAtol = 1e-8;
constexpr double kDefaultRtol = 1e-5;

// The most dimensions a runtime tensor has (ExecuTorch's kTensorDimensionLimit).
constexpr uint32_t kMaxRank = 16;

// Bytes per element of the dtypes the runner sets and compares; 0 for any other.
size_t element_size(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Bool:
      return 1;
    case ScalarType::Short:
      return 2;
    case ScalarType::Int:
    case ScalarType::Float:
      return 4;
    case ScalarType::Long:
    case ScalarType::Double:
      return 8;
    default:
      return 0;
  }
}

bool named(fb::Table suite_table, const char* name) {
  const char* method = suite_table.str(suite::method_name);
  return method != nullptr && std::strcmp(method, name) == 0;
}

// Bounds checks over the whole flatbuffer, in the order the accessors read it. Every check
// that fails logs what it found and returns false.
class Verifier {
 public:
  Verifier(const uint8_t* buf, size_t size) : buf_(buf), size_(size), budget_(size / 4 + 64) {}

  bool bundle(fb::Table* root) {
    if (size_ < 8 || !table(fb::rd32(buf_), root)) return fail("no root table");
    fb::Vec program;
    fb::Vec suites;
    if (!vector_field(*root, bundle::program, 1, &program) || program.size() == 0) return fail("no program");
    if (!vector_field(*root, bundle::method_test_suites, 4, &suites)) return fail("bad test suite list");
    for (uint32_t i = 0; i < suites.size(); ++i) {
      fb::Table suite_table;
      fb::Vec cases;
      if (!table_at(suites, i, &suite_table) || !string_field(suite_table, suite::method_name) ||
          !vector_field(suite_table, suite::test_cases, 4, &cases)) {
        return fail("bad test suite");
      }
      // Values are read (and so checked) only for the suites this reader hands out.
      const bool read = named(suite_table, kBundledMethod) || named(suite_table, kToleranceSuite);
      for (uint32_t k = 0; k < cases.size(); ++k) {
        fb::Table case_table;
        if (!table_at(cases, k, &case_table) || !values(case_table, test_case::inputs, read) ||
            !values(case_table, test_case::expected_outputs, read)) {
          return fail("bad test case");
        }
      }
    }
    return true;
  }

 private:
  bool fail(const char* what) const {
    ET_LOG(Error, "bundled program: %s", what);
    return false;
  }
  bool in(uint64_t pos, uint64_t len) const {
    return pos <= size_ && len <= size_ - pos;
  }
  bool spend() {
    if (budget_ == 0) return false;  // tables shared many times over: refuse the work
    --budget_;
    return true;
  }
  uint64_t pos(const uint8_t* p) const {
    return static_cast<uint64_t>(p - buf_);
  }

  // A table at `at`: its vtable and inline part lie in the buffer.
  bool table(uint64_t at, fb::Table* out) {
    if (!spend() || !in(at, 4)) return false;
    const int64_t vt = static_cast<int64_t>(at) - static_cast<int32_t>(fb::rd32(buf_ + at));
    if (vt < 0 || !in(static_cast<uint64_t>(vt), 4)) return false;
    const uint16_t vt_len = fb::rd16(buf_ + vt);
    const uint16_t table_len = fb::rd16(buf_ + vt + 2);
    if (vt_len < 4 || (vt_len & 1) || !in(static_cast<uint64_t>(vt), vt_len) || table_len < 4 || !in(at, table_len)) {
      return false;
    }
    out->p = buf_ + at;
    return true;
  }
  // Field `slot` of a checked table: its `bytes` bytes lie inside the table (or it is absent).
  bool scalar(fb::Table t, unsigned slot, unsigned bytes) const {
    const uint32_t off = t.field(slot);
    const uint8_t* vt = t.p - static_cast<int32_t>(fb::rd32(t.p));
    return off == 0 || off + bytes <= fb::rd16(vt + 2);
  }
  // Where the offset field `slot` points: false if it points outside; *present false if absent.
  bool target(fb::Table t, unsigned slot, uint64_t* at, bool* present) const {
    if (!scalar(t, slot, 4)) return false;
    const uint32_t off = t.field(slot);
    *present = off != 0;
    if (off == 0) return true;
    *at = pos(t.p) + off + fb::rd32(t.p + off);
    return *at < size_;
  }
  // A vector of `elem_bytes`-byte elements at `at`, with multi-byte elements aligned.
  bool vector(uint64_t at, unsigned elem_bytes, fb::Vec* out) {
    if (!spend() || !in(at, 4)) return false;
    const uint64_t len = fb::rd32(buf_ + at);
    if (!in(at + 4, len * elem_bytes)) return false;
    if (elem_bytes > 1 && reinterpret_cast<uintptr_t>(buf_ + at + 4) % elem_bytes != 0) return false;
    out->p = buf_ + at;
    return true;
  }
  // An absent vector field passes as an empty vector.
  bool vector_field(fb::Table t, unsigned slot, unsigned elem_bytes, fb::Vec* out) {
    uint64_t at;
    bool present;
    *out = fb::Vec{};
    return target(t, slot, &at, &present) && (!present || vector(at, elem_bytes, out));
  }
  bool string_field(fb::Table t, unsigned slot) {
    uint64_t at;
    bool present;
    fb::Vec chars;
    if (!target(t, slot, &at, &present)) return false;
    return !present || (vector(at, 1, &chars) && in(at + 4, chars.size() + 1ull) && buf_[at + 4 + chars.size()] == 0);
  }
  bool table_field(fb::Table t, unsigned slot, fb::Table* out) {
    uint64_t at;
    bool present;
    *out = fb::Table{};
    return target(t, slot, &at, &present) && present && table(at, out);
  }
  bool table_at(fb::Vec v, uint32_t i, fb::Table* out) {
    const uint64_t slot = pos(v.data()) + 4ull * i;
    return table(slot + fb::rd32(buf_ + slot), out);
  }

  // The vector of Values in field `slot` of a test case; each value's content is checked
  // only when `read`.
  bool values(fb::Table case_table, unsigned slot, bool read) {
    fb::Vec list;
    if (!vector_field(case_table, slot, 4, &list)) return false;
    for (uint32_t i = 0; i < list.size(); ++i) {
      fb::Table value_table;
      if (!table_at(list, i, &value_table) || !scalar(value_table, value::val_type, 1)) return false;
      if (!read) continue;
      const auto type = static_cast<ValueType>(value_table.get<uint8_t>(value::val_type));
      fb::Table member;
      if (type == ValueType::kNone || type > ValueType::kDouble || !table_field(value_table, value::val, &member)) {
        return fail("a value that is not a Tensor, Int, Bool or Double");
      }
      const bool ok = type == ValueType::kTensor ? tensor_ok(member)
                      : type == ValueType::kBool ? scalar(member, kOnlyField, 1)
                                                 : scalar(member, kOnlyField, 8);
      if (!ok) return false;
    }
    return true;
  }

  // A tensor whose data, shape, dtype and dim order agree.
  bool tensor_ok(fb::Table t) {
    fb::Vec sizes;
    fb::Vec data;
    fb::Vec dim_order;
    if (!scalar(t, tensor::scalar_type, 1) || !vector_field(t, tensor::sizes, 4, &sizes) ||
        !vector_field(t, tensor::data, 1, &data) || !vector_field(t, tensor::dim_order, 1, &dim_order)) {
      return fail("a tensor outside the buffer");
    }
    const int8_t type = t.get<int8_t>(tensor::scalar_type);
    const size_t elem = element_size(static_cast<ScalarType>(type));
    if (elem == 0) {
      ET_LOG(Error, "bundled program: a tensor of dtype %d, which the runner does not compare", type);
      return false;
    }
    if (sizes.size() > kMaxRank) return fail("a tensor of more than 16 dimensions");
    uint64_t numel = 1;
    bool empty = false;
    for (uint32_t d = 0; d < sizes.size(); ++d) {
      const int32_t size = sizes.at<int32_t>(d);
      if (size < 0) return fail("a negative tensor size");
      if (size == 0) {
        empty = true;
      } else if (numel <= data.size()) {  // stops growing once past the data: no overflow
        numel *= static_cast<uint64_t>(size);
      }
    }
    if ((empty ? 0 : numel * elem) != data.size()) return fail("tensor data that does not match its shape and dtype");
    if (data.size() != 0 && reinterpret_cast<uintptr_t>(data.data()) % elem != 0) {
      return fail("misaligned tensor data");
    }
    if (dim_order.size() != 0) {
      if (dim_order.size() != sizes.size()) return fail("a dim order of another rank than the sizes");
      uint32_t seen = 0;
      for (uint32_t d = 0; d < dim_order.size(); ++d) {
        const uint8_t dim = dim_order.at<uint8_t>(d);
        if (dim >= sizes.size() || (seen & (1u << dim)) != 0) return fail("a dim order that is no permutation");
        seen |= 1u << dim;
      }
    }
    return true;
  }

  const uint8_t* buf_;
  size_t size_;
  size_t budget_;
};

BundledValue read_value(fb::Vec values, size_t index) {
  const fb::Table member = values.table(static_cast<uint32_t>(index)).table(value::val);
  BundledValue v{};
  switch (static_cast<ValueType>(values.table(static_cast<uint32_t>(index)).get<uint8_t>(value::val_type))) {
    case ValueType::kTensor: {
      v.kind = BundledValue::Kind::kTensor;
      const fb::Vec sizes = member.vec(tensor::sizes);
      const fb::Vec data = member.vec(tensor::data);
      const fb::Vec dim_order = member.vec(tensor::dim_order);
      BundledTensor& t = v.tensor;
      t.scalar_type = static_cast<ScalarType>(member.get<int8_t>(tensor::scalar_type));
      const auto* size_data = sizes.size() ? reinterpret_cast<const int32_t*>(sizes.data()) : nullptr;
      t.sizes = Span<const int32_t>(size_data, sizes.size());
      t.dim_order = Span<const uint8_t>(dim_order.size() ? dim_order.data() : nullptr, dim_order.size());
      t.data = data.size() ? data.data() : nullptr;
      t.nbytes = data.size();
      t.numel = t.nbytes / element_size(t.scalar_type);
      break;
    }
    case ValueType::kInt:
      v.kind = BundledValue::Kind::kInt;
      v.int_value = member.get<int64_t>(kOnlyField);
      break;
    case ValueType::kBool:
      v.kind = BundledValue::Kind::kBool;
      v.bool_value = member.get<uint8_t>(kOnlyField) != 0;
      break;
    default:  // kDouble: load() let no other type through
      v.kind = BundledValue::Kind::kDouble;
      v.double_value = member.get<double>(kOnlyField);
      break;
  }
  return v;
}

}  // namespace

Result<BundledProgram> BundledProgram::load(const void* data, size_t size) {
  const auto* buf = static_cast<const uint8_t*>(data);
  if (!is_bundled_program(data, size)) {
    ET_LOG(Error, "bundled program: no BP08 file identifier");
    return Error::InvalidProgram;
  }
  if (size > 0x7fffffffu) return Error::InvalidProgram;  // flatbuffers' own limit
  BundledProgram bundle;
  if (!Verifier(buf, size).bundle(&bundle.root_)) return Error::InvalidProgram;

  const fb::Vec suites = bundle.root_.vec(bundle::method_test_suites);
  for (uint32_t i = 0; i < suites.size(); ++i) {
    const fb::Table suite_table = suites.table(i);
    if (named(suite_table, kBundledMethod)) {
      bundle.test_cases_ = suite_table.vec(suite::test_cases);
    } else if (named(suite_table, kToleranceSuite)) {
      const fb::Vec cases = suite_table.vec(suite::test_cases);
      const fb::Vec inputs = cases.size() == 1 ? cases.table(0).vec(test_case::inputs) : fb::Vec{};
      bool two_doubles = inputs.size() == 2;
      for (uint32_t k = 0; two_doubles && k < 2; ++k) {
        const BundledValue v = read_value(inputs, k);
        two_doubles = v.kind == BundledValue::Kind::kDouble && std::isfinite(v.double_value) && v.double_value >= 0;
      }
      if (!two_doubles) {
        ET_LOG(Error, "bundled program: the %s suite needs one test case of two Doubles >= 0 (atol, rtol)",
               kToleranceSuite);
        return Error::InvalidProgram;
      }
      bundle.tolerance_inputs_ = inputs;
    }
  }
  return bundle;
}

Span<const uint8_t> BundledProgram::program() const {
  const fb::Vec program = root_.vec(bundle::program);
  return Span<const uint8_t>(program.data(), program.size());
}

size_t BundledProgram::num_test_cases() const {
  return test_cases_.size();
}

size_t BundledProgram::num_inputs(size_t test_case) const {
  return test_cases_.table(static_cast<uint32_t>(test_case)).vec(test_case::inputs).size();
}

BundledValue BundledProgram::input(size_t test_case, size_t index) const {
  return read_value(test_cases_.table(static_cast<uint32_t>(test_case)).vec(test_case::inputs), index);
}

size_t BundledProgram::num_expected_outputs(size_t test_case) const {
  return test_cases_.table(static_cast<uint32_t>(test_case)).vec(test_case::expected_outputs).size();
}

BundledValue BundledProgram::expected_output(size_t test_case, size_t index) const {
  return read_value(test_cases_.table(static_cast<uint32_t>(test_case)).vec(test_case::expected_outputs), index);
}

Tolerance BundledProgram::tolerance() const {
  if (tolerance_inputs_.size() == 0) return Tolerance{kDefaultAtol, kDefaultRtol, false};
  return Tolerance{read_value(tolerance_inputs_, 0).double_value, read_value(tolerance_inputs_, 1).double_value, true};
}

}  // namespace runner
}  // namespace etarm
