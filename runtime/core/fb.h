// Internal: a minimal reader for the flatbuffer inside a .pte (schema: the executorch
// wheel's program.fbs + scalar_type.fbs). Not part of the public runtime API.
//
// Safety model: Program::load() runs verify_program() (fb_verify.cc) over the whole
// flatbuffer before anything else reads it. The verifier proves that every table,
// vtable, vector, string and table field reachable from the root lies inside the buffer,
// that multi-byte scalar vectors are aligned, and that strings are NUL-terminated.
// After that the accessors below may read without further bounds checks, exactly as
// flatbuffers' generated code does after flatbuffers::Verifier. Reads go through
// memcpy, so nothing here depends on the alignment of the data.
//
// What the verifier cannot know (indices into other tables, enum values, tensor
// shapes) is checked where it is used: Program, Method and the tensor parser.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etarm {
namespace fb {

inline uint16_t rd16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline uint32_t rd32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

struct Vec;

// A (verified) table; p == nullptr means "absent".
struct Table {
  const uint8_t* p = nullptr;

  explicit operator bool() const {
    return p != nullptr;
  }
  // Offset of field `id` inside the table, 0 if the field is absent.
  uint32_t field(unsigned id) const {
    const uint8_t* vt = p - static_cast<int32_t>(rd32(p));
    const unsigned slot = 4 + 2 * id;
    return slot < rd16(vt) ? rd16(vt + slot) : 0;
  }
  template <typename T>
  T get(unsigned id, T def = T()) const {
    const uint32_t o = p ? field(id) : 0;
    if (o == 0) {
      return def;
    }
    T v;
    std::memcpy(&v, p + o, sizeof(T));
    return v;
  }
  // Target of an offset field (table, vector or string), nullptr if absent.
  const uint8_t* ref(unsigned id) const {
    const uint32_t o = p ? field(id) : 0;
    if (o == 0) {
      return nullptr;
    }
    const uint8_t* q = p + o;
    return q + rd32(q);
  }
  Table table(unsigned id) const {
    return Table{ref(id)};
  }
  inline Vec vec(unsigned id) const;
  // NUL-terminated string, nullptr if absent.
  const char* str(unsigned id) const {
    const uint8_t* s = ref(id);
    return s ? reinterpret_cast<const char*>(s + 4) : nullptr;
  }
  uint32_t str_len(unsigned id) const {
    const uint8_t* s = ref(id);
    return s ? rd32(s) : 0;
  }
};

// A (verified) vector; p points at its length word, nullptr means absent/empty.
struct Vec {
  const uint8_t* p = nullptr;

  uint32_t size() const {
    return p ? rd32(p) : 0;
  }
  const uint8_t* data() const {
    return p + 4;
  }
  template <typename T>
  T at(uint32_t i) const {
    T v;
    std::memcpy(&v, p + 4 + static_cast<size_t>(i) * sizeof(T), sizeof(T));
    return v;
  }
  Table table(uint32_t i) const {
    const uint8_t* q = p + 4 + static_cast<size_t>(i) * 4;
    return Table{q + rd32(q)};
  }
  const char* str(uint32_t i) const {
    const uint8_t* q = p + 4 + static_cast<size_t>(i) * 4;
    return reinterpret_cast<const char*>(q + rd32(q) + 4);
  }
};

inline Vec Table::vec(unsigned id) const {
  return Vec{ref(id)};
}

// Field ids (vtable slots) of the schema's tables. A union field takes two slots: its
// type byte, then the value.
namespace program {
enum : unsigned {
  version = 0,
  execution_plan,
  constant_buffer,
  backend_delegate_data,
  segments,
  constant_segment,
  mutable_data_segments,
  named_data
};
}
namespace plan {
enum : unsigned {
  name = 0,
  container_meta_type,
  values,
  inputs,
  outputs,
  chains,
  operators,
  delegates,
  non_const_buffer_sizes,
  non_const_buffer_device
};
}
namespace container_meta {
enum : unsigned { encoded_inp_str = 0, encoded_out_str };
}
namespace evalue {
enum : unsigned { val_type = 0, val };
}
// KernelTypes union members.
enum class KT : uint8_t {
  NONE = 0,
  Null,
  Int,
  Bool,
  Double,
  Tensor,
  String,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};
namespace tensor {
enum : unsigned {
  scalar_type = 0,
  storage_offset,
  sizes,
  dim_order,
  requires_grad,
  data_buffer_idx,
  allocation_info,
  layout,
  shape_dynamism,
  extra_tensor_info
};
}
namespace alloc {
enum : unsigned { memory_id = 0, memory_offset_low, memory_offset_high };
}
namespace extra {
enum : unsigned {
  mutable_data_segments_idx = 0,
  fully_qualified_name,
  location,
  device_type,
  device_index
};
}
// Int, Bool, Double, String, *List: their single field is slot 0.
constexpr unsigned kOnlyField = 0;
namespace op {
enum : unsigned { name = 0, overload };
}
namespace chain {
enum : unsigned { inputs = 0, outputs, instructions, stacktrace };
}
namespace instr {
enum : unsigned { args_type = 0, args };
}
// InstructionArguments union members.
enum class IA : uint8_t {
  NONE = 0,
  KernelCall,
  DelegateCall,
  MoveCall,
  JumpFalseCall,
  FreeCall
};
// KernelCall{op_index, args}, DelegateCall{delegate_index, args},
// MoveCall{move_from, move_to}, JumpFalseCall{cond_value_index,
// destination_instruction}, FreeCall{value_index}: slots 0 and 1.
namespace delegate {
enum : unsigned { id = 0, processed, compile_specs };
}
namespace data_ref {
enum : unsigned { location = 0, index };
}
namespace compile_spec {
enum : unsigned { key = 0, value };
}
namespace buffer_device {
enum : unsigned { buffer_idx = 0, device_type, device_index };
}
namespace segment {
enum : unsigned { offset = 0, size };
}
namespace subsegment {
enum : unsigned { segment_index = 0, offsets };
}
namespace named_data {
enum : unsigned { key = 0, segment_index };
}

// Verifies the whole program flatbuffer (see the top of this file). `buf` is the
// flatbuffer (starting with the root offset), `size` its length in bytes.
bool verify_program(const uint8_t* buf, size_t size);

// Root table of a verified buffer.
inline Table root(const uint8_t* buf) {
  return Table{buf + rd32(buf)};
}

} // namespace fb
} // namespace etarm
