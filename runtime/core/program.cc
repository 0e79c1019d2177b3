// Program: header and extended-header checks, flatbuffer verification, segments,
// constant data, named data (PteDataMap), method lookup.
#include <cstring>

#include <c10/util/safe_numerics.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/executor/program_validation.h>

#include "runtime/core/internal.h"

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {

using etarm::core::as_table;
using etarm::core::span_of;
namespace fb = etarm::fb;

namespace {

// The extended header sits right after the flatbuffer's root offset and identifier:
// "eh00", u32 length, u64 program size, u64 segment base offset[, u64 segment data size].
constexpr size_t kExtendedHeaderOffset = 8;
constexpr size_t kExtendedHeaderMinLength = 24;

struct ExtendedHeader {
  uint64_t program_size;
  uint64_t segment_base_offset;
  uint64_t segment_data_size;
};

uint64_t rd64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

bool parse_extended_header(const uint8_t* head, size_t size, ExtendedHeader* out) {
  const uint8_t* h = head + kExtendedHeaderOffset;
  if (size < kExtendedHeaderOffset + 32 || std::memcmp(h, "eh00", 4) != 0) {
    return false;
  }
  const uint32_t length = fb::rd32(h + 4);
  if (length < kExtendedHeaderMinLength) {
    return false;
  }
  out->program_size = rd64(h + 8);
  out->segment_base_offset = rd64(h + 16);
  out->segment_data_size = length >= 32 ? rd64(h + 24) : 0;
  return true;
}

fb::Table root_of(const executorch_flatbuffer::Program* p) {
  return as_table(p);
}

// Loads segment `index` of `segments` through `loader`.
Result<FreeableBuffer> load_segment(
    DataLoader* loader,
    size_t segment_base_offset,
    fb::Vec segments,
    const DataLoader::SegmentInfo& info) {
  ET_CHECK_OR_RETURN_ERROR(
      info.segment_index < segments.size(), NotFound, "Segment %zu out of range", info.segment_index);
  const fb::Table seg = segments.table(info.segment_index);
  const uint64_t offset = seg.get<uint64_t>(fb::segment::offset);
  const uint64_t size = seg.get<uint64_t>(fb::segment::size);
  if (size == 0) {
    return FreeableBuffer(nullptr, 0, nullptr); // files without segment data list empty ones
  }
  ET_CHECK_OR_RETURN_ERROR(
      loader != nullptr && segment_base_offset != 0, NotFound, "The program has no segment data");
  uint64_t start;
  ET_CHECK_OR_RETURN_ERROR(
      !c10::add_overflows(static_cast<uint64_t>(segment_base_offset), offset, &start) && start <= SIZE_MAX &&
          size <= SIZE_MAX,
      InvalidProgram,
      "Segment %zu out of range",
      info.segment_index);
  return loader->load(static_cast<size_t>(start), static_cast<size_t>(size), info);
}

bool name_matches(const char* name, const char* wanted) {
  return name != nullptr && wanted != nullptr && std::strcmp(name, wanted) == 0;
}

} // namespace

Program::HeaderStatus Program::check_header(const void* data, size_t size) {
  if (data == nullptr || size < kMinHeadBytes) {
    return ShortData;
  }
  const char* id = static_cast<const char*>(data) + 4;
  if (std::memcmp(id, "ET12", 4) == 0) {
    return CompatibleVersion;
  }
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (id[0] == 'E' && id[1] == 'T' && digit(id[2]) && digit(id[3])) {
    return IncompatibleVersion;
  }
  return NotPresent;
}

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  ET_CHECK_OR_RETURN_ERROR(loader != nullptr, InvalidArgument, "No data loader");
  auto file_size = loader->size();
  if (!file_size.ok()) {
    return file_size.error();
  }
  ET_CHECK_OR_RETURN_ERROR(
      *file_size >= kMinHeadBytes, InvalidProgram, "Program of %zu bytes is truncated", *file_size);

  size_t program_size = *file_size;
  size_t segment_base_offset = 0;
  {
    auto head = loader->load(0, kMinHeadBytes, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
    if (!head.ok()) {
      return head.error();
    }
    const auto* bytes = static_cast<const uint8_t*>(head->data());
    const HeaderStatus status = check_header(bytes, head->size());
    ET_CHECK_OR_RETURN_ERROR(
        status == CompatibleVersion,
        InvalidProgram,
        "Not a compatible ExecuTorch program (identifier '%.4s')",
        head->size() >= 8 ? reinterpret_cast<const char*>(bytes + 4) : "");
    ExtendedHeader eh;
    if (parse_extended_header(bytes, head->size(), &eh)) {
      uint64_t end;
      ET_CHECK_OR_RETURN_ERROR(
          eh.program_size >= kMinHeadBytes && eh.program_size <= *file_size, InvalidProgram,
          "Program size %llu does not fit the file (%zu bytes)", static_cast<unsigned long long>(eh.program_size),
          *file_size);
      ET_CHECK_OR_RETURN_ERROR(
          eh.segment_base_offset == 0 ||
              (eh.segment_base_offset >= eh.program_size && eh.segment_base_offset <= *file_size &&
               !c10::add_overflows(eh.segment_base_offset, eh.segment_data_size, &end) && end <= *file_size),
          InvalidProgram,
          "Segment data does not fit the file");
      program_size = static_cast<size_t>(eh.program_size);
      segment_base_offset = static_cast<size_t>(eh.segment_base_offset);
    }
  }

  auto program_data =
      loader->load(0, program_size, DataLoader::SegmentInfo(DataLoader::SegmentInfo::Type::Program));
  if (!program_data.ok()) {
    return program_data.error();
  }
  const auto* data = static_cast<const uint8_t*>(program_data->data());
  ET_CHECK_OR_RETURN_ERROR(
      program_data->size() == program_size && fb::verify_program(data, program_size),
      InvalidProgram,
      "The program flatbuffer failed verification (corrupt or truncated)");
  const fb::Table root = fb::root(data);
  const auto* internal_program = reinterpret_cast<const executorch_flatbuffer::Program*>(root.p);

  const uint32_t version = root.get<uint32_t>(fb::program::version);
  ET_CHECK_OR_RETURN_ERROR(
      version <= kMaxSupportedSchemaVersion, InvalidProgram, "Unsupported schema version %u", version);
  if (verification == Verification::InternalConsistency) {
    const Error err = validate_program(internal_program);
    if (err != Error::Ok) {
      return err;
    }
  }

  const fb::Vec segments = root.vec(fb::program::segments);

  // Constant tensor data in a segment (newer files) rather than inline buffers.
  FreeableBuffer constant_segment_data;
  const fb::Table constant_segment = root.table(fb::program::constant_segment);
  if (constant_segment && constant_segment.vec(fb::subsegment::offsets).size() > 0) {
    ET_CHECK_OR_RETURN_ERROR(
        root.vec(fb::program::constant_buffer).size() == 0,
        InvalidProgram,
        "Both constant_buffer and constant_segment are used");
    auto seg = load_segment(
        loader,
        segment_base_offset,
        segments,
        DataLoader::SegmentInfo(
            DataLoader::SegmentInfo::Type::Constant, constant_segment.get<uint32_t>(fb::subsegment::segment_index)));
    if (!seg.ok()) {
      return seg.error();
    }
    constant_segment_data.~FreeableBuffer();
    new (&constant_segment_data) FreeableBuffer(std::move(*seg));
  }

  std::optional<internal::PteDataMap> pte_data_map;
  const fb::Vec named_data = root.vec(fb::program::named_data);
  if (named_data.size() > 0) {
    auto map = internal::PteDataMap::create(
        loader,
        segment_base_offset,
        reinterpret_cast<const flatbuffers::FlatbufferNamedData*>(named_data.p),
        reinterpret_cast<const flatbuffers::FlatbufferDataSegment*>(segments.p));
    if (!map.ok()) {
      return map.error();
    }
    pte_data_map.emplace(std::move(*map));
  }

  return Program(
      loader,
      segment_base_offset,
      std::move(*program_data),
      internal_program,
      std::move(constant_segment_data),
      std::move(pte_data_map));
}

size_t Program::num_methods() const {
  return root_of(internal_program_).vec(fb::program::execution_plan).size();
}

Result<const char*> Program::get_method_name(size_t method_index) const {
  const fb::Vec plans = root_of(internal_program_).vec(fb::program::execution_plan);
  ET_CHECK_OR_RETURN_ERROR(method_index < plans.size(), InvalidArgument, "Method index %zu out of range", method_index);
  const char* name = plans.table(method_index).str(fb::plan::name);
  ET_CHECK_OR_RETURN_ERROR(name != nullptr, InvalidProgram, "Method %zu has no name", method_index);
  return name;
}

namespace {
Result<fb::Table> find_plan(fb::Table root, const char* method_name) {
  const fb::Vec plans = root.vec(fb::program::execution_plan);
  for (uint32_t i = 0; i < plans.size(); ++i) {
    if (name_matches(plans.table(i).str(fb::plan::name), method_name)) {
      return plans.table(i);
    }
  }
  ET_LOG(Error, "No method named '%s'", method_name ? method_name : "(null)");
  return Error::InvalidArgument;
}
} // namespace

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  auto plan = find_plan(root_of(internal_program_), method_name);
  if (!plan.ok()) {
    return plan.error();
  }
  return MethodMeta(reinterpret_cast<const executorch_flatbuffer::ExecutionPlan*>(plan->p));
}

Result<Method> Program::load_method(
    const char* method_name,
    MemoryManager* memory_manager,
    EventTracer* event_tracer,
    const NamedDataMap* named_data_map,
    const LoadBackendOptionsMap* backend_options,
    Span<const Kernel> kernel_registry) const {
  auto plan = find_plan(root_of(internal_program_), method_name);
  if (!plan.ok()) {
    return plan.error();
  }
  return Method::load(
      reinterpret_cast<executorch_flatbuffer::ExecutionPlan*>(const_cast<uint8_t*>(plan->p)),
      this,
      memory_manager,
      event_tracer,
      named_data_map,
      backend_options,
      kernel_registry);
}

Result<const char*> Program::get_output_flattening_encoding(const char* method_name) const {
  auto plan = find_plan(root_of(internal_program_), method_name);
  if (!plan.ok()) {
    return plan.error();
  }
  const char* s = plan->table(fb::plan::container_meta_type).str(fb::container_meta::encoded_out_str);
  return s ? s : "";
}

Result<const void*> Program::get_constant_buffer_data(size_t buffer_idx, size_t nbytes) const {
  const fb::Table root = root_of(internal_program_);
  const fb::Table constant_segment = root.table(fb::program::constant_segment);
  const fb::Vec offsets = constant_segment.vec(fb::subsegment::offsets);
  if (offsets.size() > 0) {
    ET_CHECK_OR_RETURN_ERROR(
        buffer_idx < offsets.size(), InvalidProgram, "Constant index %zu out of range", buffer_idx);
    const uint64_t offset = offsets.at<uint64_t>(buffer_idx);
    const size_t available = constant_segment_data_.size();
    ET_CHECK_OR_RETURN_ERROR(
        offset <= available && nbytes <= available - offset,
        InvalidProgram,
        "Constant %zu (%zu bytes at %llu) exceeds the constant segment",
        buffer_idx,
        nbytes,
        static_cast<unsigned long long>(offset));
    return static_cast<const uint8_t*>(constant_segment_data_.data()) + offset;
  }
  const fb::Vec buffers = root.vec(fb::program::constant_buffer);
  ET_CHECK_OR_RETURN_ERROR(buffer_idx < buffers.size(), InvalidProgram, "Constant index %zu out of range", buffer_idx);
  const fb::Vec storage = buffers.table(buffer_idx).vec(0);
  ET_CHECK_OR_RETURN_ERROR(
      nbytes <= storage.size(), InvalidProgram, "Constant %zu holds %u bytes, %zu needed", buffer_idx, storage.size(), nbytes);
  return storage.p != nullptr ? static_cast<const void*>(storage.data()) : nullptr;
}

Result<const NamedDataMap*> Program::get_named_data_map() const {
  if (pte_data_map_.has_value()) {
    return static_cast<const NamedDataMap*>(&pte_data_map_.value());
  }
  return Error::NotFound;
}

Error Program::get_backend_delegate_data(size_t index, const void** out_data, size_t* out_size) const {
  const fb::Vec data = root_of(internal_program_).vec(fb::program::backend_delegate_data);
  ET_CHECK_OR_RETURN_ERROR(index < data.size(), NotFound, "Delegate data %zu out of range", index);
  const fb::Vec bytes = data.table(index).vec(0);
  *out_data = bytes.p != nullptr ? bytes.data() : nullptr;
  *out_size = bytes.size();
  return Error::Ok;
}

Result<FreeableBuffer> Program::LoadSegment(const DataLoader::SegmentInfo& segment_info) const {
  return load_segment(
      loader_, segment_base_offset_, root_of(internal_program_).vec(fb::program::segments), segment_info);
}

Error Program::load_mutable_subsegment_into(
    size_t mutable_data_segments_index,
    size_t offset_index,
    size_t size,
    void* buffer) const {
  const fb::Table root = root_of(internal_program_);
  const fb::Vec mutable_segments = root.vec(fb::program::mutable_data_segments);
  ET_CHECK_OR_RETURN_ERROR(
      mutable_data_segments_index < mutable_segments.size(), NotFound, "Mutable segment list index out of range");
  const fb::Table sub = mutable_segments.table(mutable_data_segments_index);
  const fb::Vec offsets = sub.vec(fb::subsegment::offsets);
  ET_CHECK_OR_RETURN_ERROR(offset_index < offsets.size(), NotFound, "Mutable data index out of range");
  const uint32_t segment_index = sub.get<uint32_t>(fb::subsegment::segment_index);
  const fb::Vec segments = root.vec(fb::program::segments);
  ET_CHECK_OR_RETURN_ERROR(
      loader_ != nullptr && segment_index < segments.size(), NotFound, "Mutable segment out of range");
  const fb::Table seg = segments.table(segment_index);
  const uint64_t seg_offset = seg.get<uint64_t>(fb::segment::offset);
  const uint64_t seg_size = seg.get<uint64_t>(fb::segment::size);
  const uint64_t offset = offsets.at<uint64_t>(offset_index);
  uint64_t start;
  ET_CHECK_OR_RETURN_ERROR(
      offset <= seg_size && size <= seg_size - offset &&
          !c10::add_overflows(static_cast<uint64_t>(segment_base_offset_), seg_offset, &start) &&
          !c10::add_overflows(start, offset, &start) && start <= SIZE_MAX,
      InvalidProgram,
      "Mutable data exceeds its segment");
  const DataLoader::SegmentInfo info(DataLoader::SegmentInfo::Type::Mutable, segment_index);
  Error err = loader_->load_into(static_cast<size_t>(start), size, info, buffer);
  if (err == Error::NotImplemented) {
    auto data = loader_->load(static_cast<size_t>(start), size, info);
    if (!data.ok()) {
      return data.error();
    }
    std::memcpy(buffer, data->data(), size);
    err = Error::Ok;
  }
  return err;
}

// --- PteDataMap -------------------------------------------------------------------

namespace internal {

Result<PteDataMap> PteDataMap::create(
    DataLoader* loader,
    size_t segment_base_offset,
    const flatbuffers::FlatbufferNamedData* named_data,
    const flatbuffers::FlatbufferDataSegment* segments) {
  ET_CHECK_OR_RETURN_ERROR(loader != nullptr && named_data != nullptr, InvalidArgument, "Missing named data");
  return PteDataMap(loader, segment_base_offset, named_data, segments);
}

Result<FreeableBuffer> PteDataMap::get_data(std::string_view key) const {
  const fb::Vec named{reinterpret_cast<const uint8_t*>(named_data_)};
  for (uint32_t i = 0; i < named.size(); ++i) {
    const fb::Table entry = named.table(i);
    const char* k = entry.str(fb::named_data::key);
    if (k != nullptr && std::string_view(k, entry.str_len(fb::named_data::key)) == key) {
      return load_segment(
          loader_,
          segment_base_offset_,
          fb::Vec{reinterpret_cast<const uint8_t*>(segments_)},
          DataLoader::SegmentInfo(
              DataLoader::SegmentInfo::Type::External, entry.get<uint32_t>(fb::named_data::segment_index), k));
    }
  }
  return Error::NotFound;
}

Result<uint32_t> PteDataMap::get_num_keys() const {
  return fb::Vec{reinterpret_cast<const uint8_t*>(named_data_)}.size();
}

Result<const char*> PteDataMap::get_key(uint32_t index) const {
  const fb::Vec named{reinterpret_cast<const uint8_t*>(named_data_)};
  ET_CHECK_OR_RETURN_ERROR(index < named.size(), InvalidArgument, "Key index %u out of range", index);
  const char* k = named.table(index).str(fb::named_data::key);
  ET_CHECK_OR_RETURN_ERROR(k != nullptr, InvalidProgram, "Named data %u has no key", index);
  return k;
}

} // namespace internal
} // namespace ET_RUNTIME_NAMESPACE

// --- semantic validation (Verification::InternalConsistency) ----------------------

namespace runtime {
namespace {

bool index_ok(int64_t index, uint32_t n) {
  return index >= 0 && index < static_cast<int64_t>(n);
}

bool indices_ok(fb::Vec v, uint32_t n, bool allow_minus_one, bool is64) {
  for (uint32_t i = 0; i < v.size(); ++i) {
    const int64_t x = is64 ? v.at<int64_t>(i) : v.at<int32_t>(i);
    if (!(index_ok(x, n) || (allow_minus_one && x == -1))) {
      return false;
    }
  }
  return true;
}

Error validate_plan(fb::Table root, fb::Table plan) {
  const fb::Vec values = plan.vec(fb::plan::values);
  const uint32_t n = values.size();
  for (uint32_t i = 0; i < n; ++i) {
    const fb::Table v = values.table(i);
    const auto type = static_cast<fb::KT>(v.get<uint8_t>(fb::evalue::val_type));
    const fb::Table val = v.table(fb::evalue::val);
    bool ok = true;
    switch (type) {
      case fb::KT::Tensor:
        ok = validate_tensor(reinterpret_cast<const executorch_flatbuffer::Tensor*>(val.p)) == Error::Ok;
        break;
      case fb::KT::IntList:
        ok = indices_ok(val.vec(fb::kOnlyField), n, false, true);
        break;
      case fb::KT::TensorList:
        ok = indices_ok(val.vec(fb::kOnlyField), n, false, false);
        break;
      case fb::KT::OptionalTensorList:
        ok = indices_ok(val.vec(fb::kOnlyField), n, true, false);
        break;
      case fb::KT::BoolList: {
        const fb::Vec items = val.vec(fb::kOnlyField);
        for (uint32_t j = 0; j < items.size() && ok; ++j) {
          ok = items.at<uint8_t>(j) <= 1;
        }
        break;
      }
      case fb::KT::NONE:
        ok = false;
        break;
      default:
        break;
    }
    ET_CHECK_OR_RETURN_ERROR(ok, InvalidProgram, "Value %u is invalid", i);
  }
  ET_CHECK_OR_RETURN_ERROR(
      indices_ok(plan.vec(fb::plan::inputs), n, false, false) && indices_ok(plan.vec(fb::plan::outputs), n, false, false),
      InvalidProgram,
      "Input or output index out of range");
  const uint32_t n_ops = plan.vec(fb::plan::operators).size();
  const fb::Vec delegates = plan.vec(fb::plan::delegates);
  const fb::Vec chains = plan.vec(fb::plan::chains);
  for (uint32_t c = 0; c < chains.size(); ++c) {
    const fb::Vec instrs = chains.table(c).vec(fb::chain::instructions);
    for (uint32_t j = 0; j < instrs.size(); ++j) {
      const fb::Table ins = instrs.table(j);
      const fb::Table a = ins.table(fb::instr::args);
      bool ok;
      switch (static_cast<fb::IA>(ins.get<uint8_t>(fb::instr::args_type))) {
        case fb::IA::KernelCall:
          ok = index_ok(a.get<int32_t>(0), n_ops) && indices_ok(a.vec(1), n, false, false);
          break;
        case fb::IA::DelegateCall:
          ok = index_ok(a.get<int32_t>(0), delegates.size()) && indices_ok(a.vec(1), n, false, false);
          break;
        case fb::IA::MoveCall:
          ok = index_ok(a.get<int32_t>(0), n) && index_ok(a.get<int32_t>(1), n);
          break;
        case fb::IA::JumpFalseCall:
          ok = index_ok(a.get<int32_t>(0), n) && index_ok(a.get<int32_t>(1), instrs.size() + 1);
          break;
        case fb::IA::FreeCall:
          ok = index_ok(a.get<int32_t>(0), n);
          break;
        default:
          ok = false;
      }
      ET_CHECK_OR_RETURN_ERROR(ok, InvalidProgram, "Instruction %u of chain %u is invalid", j, c);
    }
  }
  const uint32_t n_inline = root.vec(fb::program::backend_delegate_data).size();
  const uint32_t n_segments = root.vec(fb::program::segments).size();
  for (uint32_t d = 0; d < delegates.size(); ++d) {
    const fb::Table ref = delegates.table(d).table(fb::delegate::processed);
    const uint8_t location = ref.get<uint8_t>(fb::data_ref::location);
    const uint32_t index = ref.get<uint32_t>(fb::data_ref::index);
    ET_CHECK_OR_RETURN_ERROR(
        delegates.table(d).str(fb::delegate::id) != nullptr && ref &&
            ((location == 0 && index < n_inline) || (location == 1 && index < n_segments)),
        InvalidProgram,
        "Delegate %u is invalid",
        d);
  }
  const fb::Vec sizes = plan.vec(fb::plan::non_const_buffer_sizes);
  for (uint32_t b = 0; b < sizes.size(); ++b) {
    ET_CHECK_OR_RETURN_ERROR(sizes.at<int64_t>(b) >= 0, InvalidProgram, "Negative planned buffer size");
  }
  return Error::Ok;
}

} // namespace

Error validate_tensor(const executorch_flatbuffer::Tensor* tensor) {
  const fb::Table t = as_table(tensor);
  ET_CHECK_OR_RETURN_ERROR(t, InvalidProgram, "Missing tensor");
  auto nbytes = internal::checked_nbytes(
      span_of<int32_t>(t.vec(fb::tensor::sizes)),
      span_of<uint8_t>(t.vec(fb::tensor::dim_order)),
      static_cast<etensor::ScalarType>(t.get<int8_t>(fb::tensor::scalar_type)));
  ET_CHECK_OR_RETURN_ERROR(
      nbytes.ok() && t.get<uint8_t>(fb::tensor::shape_dynamism) <= 2, InvalidProgram, "Invalid tensor");
  return Error::Ok;
}

Error validate_program(const executorch_flatbuffer::Program* program) {
  const fb::Table root = as_table(program);
  ET_CHECK_OR_RETURN_ERROR(root, InvalidProgram, "Missing program");
  const fb::Vec plans = root.vec(fb::program::execution_plan);
  for (uint32_t i = 0; i < plans.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(plans.table(i).str(fb::plan::name) != nullptr, InvalidProgram, "Unnamed method");
    const Error err = validate_plan(root, plans.table(i));
    if (err != Error::Ok) {
      return err;
    }
  }
  const uint32_t n_segments = root.vec(fb::program::segments).size();
  const fb::Table cs = root.table(fb::program::constant_segment);
  ET_CHECK_OR_RETURN_ERROR(
      !cs || cs.vec(fb::subsegment::offsets).size() == 0 || cs.get<uint32_t>(fb::subsegment::segment_index) < n_segments,
      InvalidProgram,
      "Constant segment out of range");
  const fb::Vec mutable_segments = root.vec(fb::program::mutable_data_segments);
  for (uint32_t i = 0; i < mutable_segments.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        mutable_segments.table(i).get<uint32_t>(fb::subsegment::segment_index) < n_segments,
        InvalidProgram,
        "Mutable segment out of range");
  }
  const fb::Vec named = root.vec(fb::program::named_data);
  for (uint32_t i = 0; i < named.size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(
        named.table(i).str(fb::named_data::key) != nullptr &&
            named.table(i).get<uint32_t>(fb::named_data::segment_index) < n_segments,
        InvalidProgram,
        "Named data %u is invalid",
        i);
  }
  return Error::Ok;
}

} // namespace runtime
} // namespace executorch
