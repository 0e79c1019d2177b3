// Platform layer: PAL dispatch (registered PalImpl or the et_pal_* functions), logging,
// runtime_init / runtime_abort.
#include <cstdio>
#include <cstring>

#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/platform/abort.h>
#include <executorch/runtime/platform/log.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

namespace executorch {
namespace runtime {
namespace {
PalImpl g_pal = {};
} // namespace

PalImpl PalImpl::create(pal_emit_log_message_method emit_log_message, const char* source_filename) {
  PalImpl impl;
  impl.emit_log_message = emit_log_message;
  impl.source_filename = source_filename;
  return impl;
}

PalImpl PalImpl::create(
    pal_init_method init,
    pal_abort_method abort,
    pal_current_ticks_method current_ticks,
    pal_ticks_to_ns_multiplier_method ticks_to_ns_multiplier,
    pal_emit_log_message_method emit_log_message,
    pal_allocate_method allocate,
    pal_free_method free,
    const char* source_filename) {
  PalImpl impl;
  impl.init = init;
  impl.abort = abort;
  impl.current_ticks = current_ticks;
  impl.ticks_to_ns_multiplier = ticks_to_ns_multiplier;
  impl.emit_log_message = emit_log_message;
  impl.allocate = allocate;
  impl.free = free;
  impl.source_filename = source_filename;
  return impl;
}

// Functions set in `impl` replace the current ones; null ones keep them.
bool register_pal(PalImpl impl) {
#define ETARM_TAKE(f) \
  if (impl.f != nullptr) g_pal.f = impl.f
  ETARM_TAKE(init);
  ETARM_TAKE(abort);
  ETARM_TAKE(current_ticks);
  ETARM_TAKE(ticks_to_ns_multiplier);
  ETARM_TAKE(emit_log_message);
  ETARM_TAKE(allocate);
  ETARM_TAKE(free);
#undef ETARM_TAKE
  g_pal.source_filename = impl.source_filename;
  return true;
}

const PalImpl* get_pal_impl() {
  return &g_pal;
}

void pal_init() {
  if (g_pal.init != nullptr) {
    g_pal.init();
  } else {
    et_pal_init();
  }
}

void pal_abort() {
  if (g_pal.abort != nullptr) {
    g_pal.abort();
  }
  et_pal_abort();
}

et_timestamp_t pal_current_ticks() {
  return g_pal.current_ticks != nullptr ? g_pal.current_ticks() : et_pal_current_ticks();
}

et_tick_ratio_t pal_ticks_to_ns_multiplier() {
  return g_pal.ticks_to_ns_multiplier != nullptr ? g_pal.ticks_to_ns_multiplier()
                                                 : et_pal_ticks_to_ns_multiplier();
}

void pal_emit_log_message(
    et_timestamp_t timestamp,
    et_pal_log_level_t level,
    const char* filename,
    const char* function,
    size_t line,
    const char* message,
    size_t length) {
  if (g_pal.emit_log_message != nullptr) {
    g_pal.emit_log_message(timestamp, level, filename, function, line, message, length);
  } else {
    et_pal_emit_log_message(timestamp, level, filename, function, line, message, length);
  }
}

void* pal_allocate(size_t size) {
  return g_pal.allocate != nullptr ? g_pal.allocate(size) : et_pal_allocate(size);
}

void pal_free(void* ptr) {
  if (g_pal.free != nullptr) {
    g_pal.free(ptr);
  } else {
    et_pal_free(ptr);
  }
}

void runtime_init() {
  pal_init();
}

void runtime_abort() {
  pal_abort();
}

namespace internal {

et_timestamp_t get_log_timestamp() {
  return pal_current_ticks();
}

void vlogf(
    LogLevel level,
    et_timestamp_t timestamp,
    const char* filename,
    const char* function,
    size_t line,
    const char* format,
    va_list args) {
  static const et_pal_log_level_t kLevels[] = {kDebug, kInfo, kError, kFatal};
  const auto index = static_cast<unsigned>(level);
  const et_pal_log_level_t pal_level = index < 4 ? kLevels[index] : kUnknown;
  char message[256];
  int n = std::vsnprintf(message, sizeof(message), format, args);
  size_t length = n < 0 ? 0 : (static_cast<size_t>(n) >= sizeof(message) ? sizeof(message) - 1 : n);
  pal_emit_log_message(timestamp, pal_level, filename, function, line, message, length);
}

} // namespace internal

// Writes the tag's name (NUL-terminated, truncated to fit); returns the length the full
// name needs, without the NUL, like snprintf.
size_t tag_to_string(Tag tag, char* buffer, size_t buffer_size) {
  static const char* const kNames[] = {"None", "Tensor", "String", "Double", "Int", "Bool",
      "ListBool", "ListDouble", "ListInt", "ListTensor", "ListScalar", "ListOptionalTensor"};
  const auto index = static_cast<size_t>(tag);
  const char* name = index < sizeof(kNames) / sizeof(kNames[0]) ? kNames[index] : "Unknown";
  const size_t length = std::strlen(name);
  if (buffer != nullptr && buffer_size > 0) {
    const size_t n = length < buffer_size - 1 ? length : buffer_size - 1;
    std::memcpy(buffer, name, n);
    buffer[n] = '\0';
  }
  return length;
}

} // namespace runtime
} // namespace executorch
