// Kernel and backend registries: fixed-size tables filled at static-initialisation time
// (no heap). Their sizes come from the build (--//runtime/core:max_kernels and
// :max_backends, through the generated registry_config.h); kernel priorities and the rule
// for which library's kernel wins: kernel_registry.h.
#include <cstring>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/log.h>

#include "runtime/core/kernel_registry.h"
#include "runtime/core/registry_config.h"
#include "runtime/executorch_names.h"

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace {

Kernel g_kernels[ETARM_MAX_KERNELS];
int g_priorities[ETARM_MAX_KERNELS];  // of g_kernels[i]
size_t g_num_kernels = 0;
size_t g_dropped = 0;  // registrations refused for lack of room

Backend g_backends[ETARM_MAX_BACKENDS];
size_t g_num_backends = 0;

// Appends `text` at `*pos`; false if it does not fit (with the NUL).
bool append(char* buf, size_t size, size_t* pos, const char* text, size_t n) {
  if (*pos + n >= size) {
    return false;
  }
  std::memcpy(buf + *pos, text, n);
  *pos += n;
  buf[*pos] = '\0';
  return true;
}

bool append_uint(char* buf, size_t size, size_t* pos, unsigned value) {
  char digits[4];
  size_t n = 0;
  do {
    digits[sizeof(digits) - 1 - n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < sizeof(digits));
  return append(buf, size, pos, digits + sizeof(digits) - n, n);
}

const Kernel* find_kernel(const char* name, const char* key, Span<const Kernel> kernels) {
  const Kernel* fallback = nullptr;
  for (const Kernel& k : kernels) {
    if (k.name_ == nullptr || std::strcmp(k.name_, name) != 0) {
      continue;
    }
    if (k.kernel_key_.is_fallback()) {
      if (fallback == nullptr) {
        fallback = &k;
      }
    } else if (key != nullptr && std::strcmp(k.kernel_key_.data(), key) == 0) {
      return &k;
    }
  }
  return fallback;
}

} // namespace

namespace internal {

// "v1/<dtype>;<d0>,<d1>,...|<dtype>;..." as ExecuTorch's kernel keys spell a list of
// tensor metas.
Error make_kernel_key_string(Span<const TensorMeta> key, char* buf, size_t buf_size) {
  if (buf == nullptr || buf_size == 0) {
    return Error::InvalidArgument;
  }
  size_t pos = 0;
  buf[0] = '\0';
  if (!append(buf, buf_size, &pos, "v1/", 3)) {
    return Error::InvalidArgument;
  }
  for (size_t i = 0; i < key.size(); ++i) {
    const TensorMeta& meta = key[i];
    if ((i > 0 && !append(buf, buf_size, &pos, "|", 1)) ||
        !append_uint(buf, buf_size, &pos, static_cast<uint8_t>(meta.dtype_)) ||
        !append(buf, buf_size, &pos, ";", 1)) {
      return Error::InvalidArgument;
    }
    for (size_t d = 0; d < meta.dim_order_.size(); ++d) {
      if ((d > 0 && !append(buf, buf_size, &pos, ",", 1)) ||
          !append_uint(buf, buf_size, &pos, meta.dim_order_[d])) {
        return Error::InvalidArgument;
      }
    }
  }
  return Error::Ok;
}

} // namespace internal

Error register_kernels(const Span<const Kernel> kernels) {
  return etarm::core::register_kernels(kernels, etarm::core::kPortableKernels);
}

Span<const Kernel> get_registered_kernels() {
  return {g_kernels, g_num_kernels};
}

Result<OpFunction> get_op_function_from_registry(
    const char* name,
    Span<const TensorMeta> meta_list,
    Span<const Kernel> kernel_list) {
  if (name == nullptr) {
    return Error::InvalidArgument;
  }
  char key[internal::kKernelKeyBufSize];
  const char* key_ptr = nullptr;
  if (internal::make_kernel_key_string(meta_list, key, sizeof(key)) == Error::Ok) {
    key_ptr = key;
  }
  const Kernel* k = find_kernel(name, key_ptr, kernel_list);
  if (k == nullptr) {
    k = find_kernel(name, key_ptr, get_registered_kernels());
  }
  if (k == nullptr) {
    if (g_dropped > 0) {
      ET_LOG(Error, "Missing operator: %s (the kernel registry, %d entries, refused %u registrations: build with "
             "a larger --//runtime/core:max_kernels)", name, ETARM_MAX_KERNELS, static_cast<unsigned>(g_dropped));
    } else {
      ET_LOG(Error, "Missing operator: %s", name);
    }
    return Error::OperatorMissing;
  }
  return k->op_;
}

Result<OpFunction> get_op_function_from_registry(const char* name, Span<const TensorMeta> meta_list) {
  return get_op_function_from_registry(name, meta_list, {});
}

bool registry_has_op_function(const char* name, Span<const TensorMeta> meta_list) {
  char key[internal::kKernelKeyBufSize];
  const char* key_ptr =
      internal::make_kernel_key_string(meta_list, key, sizeof(key)) == Error::Ok ? key : nullptr;
  return name != nullptr && find_kernel(name, key_ptr, get_registered_kernels()) != nullptr;
}

// --- backends -------------------------------------------------------------------

BackendInterface::~BackendInterface() {}

Error register_backend(const Backend& backend) {
  if (backend.name == nullptr || backend.backend == nullptr) {
    return Error::InvalidArgument;
  }
  if (get_backend_class(backend.name) != nullptr) {
    ET_LOG(Error, "Backend %s is already registered", backend.name);
    return Error::RegistrationAlreadyRegistered;
  }
  if (g_num_backends >= ETARM_MAX_BACKENDS) {
    ET_LOG(Error, "Backend registry full (%d entries)", ETARM_MAX_BACKENDS);
    return Error::RegistrationExceedingMaxKernels;
  }
  g_backends[g_num_backends++] = backend;
  return Error::Ok;
}

BackendInterface* get_backend_class(const char* name) {
  if (name == nullptr) {
    return nullptr;
  }
  for (size_t i = 0; i < g_num_backends; ++i) {
    if (std::strcmp(g_backends[i].name, name) == 0) {
      return g_backends[i].backend;
    }
  }
  return nullptr;
}

size_t get_num_registered_backends() {
  return g_num_backends;
}

Result<const char*> get_backend_name(size_t index) {
  if (index >= g_num_backends) {
    return Error::InvalidArgument;
  }
  return g_backends[index].name;
}

Error set_option(const char* backend_name, const Span<BackendOption> backend_options) {
  BackendInterface* backend = get_backend_class(backend_name);
  if (backend == nullptr) {
    return Error::NotFound;
  }
  BackendOptionContext context;
  return backend->set_option(context, backend_options);
}

Error get_option(const char* backend_name, Span<BackendOption> backend_options) {
  BackendInterface* backend = get_backend_class(backend_name);
  if (backend == nullptr) {
    return Error::NotFound;
  }
  BackendOptionContext context;
  return backend->get_option(context, backend_options);
}

} // namespace ET_RUNTIME_NAMESPACE
} // namespace executorch

namespace etarm {
namespace core {
namespace {

using executorch::runtime::g_dropped;
using executorch::runtime::g_kernels;
using executorch::runtime::g_num_kernels;
using executorch::runtime::g_priorities;

bool same_entry(const Kernel& a, const Kernel& b) {
  return std::strcmp(a.name_, b.name_) == 0 && a.kernel_key_ == b.kernel_key_;
}

// Index of the table entry for (k.name_, k.kernel_key_), or -1.
long find_entry(const Kernel& k) {
  for (size_t i = 0; i < g_num_kernels; ++i) {
    if (same_entry(g_kernels[i], k)) return static_cast<long>(i);
  }
  return -1;
}

} // namespace

// All or nothing: the batch is checked first (names, conflicts, room), then applied.
Error register_kernels(Span<const Kernel> kernels, int priority) {
  size_t new_entries = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const Kernel& k = kernels[i];
    if (k.name_ == nullptr || k.op_ == nullptr) {
      return Error::InvalidArgument;
    }
    for (size_t j = 0; j < i; ++j) {
      if (same_entry(kernels[j], k)) {
        ET_LOG(Error, "Kernel %s is registered twice in one library", k.name_);
        return Error::RegistrationAlreadyRegistered;
      }
    }
    const long at = find_entry(k);
    if (at < 0) {
      ++new_entries;
    } else if (g_priorities[at] == priority) {
      ET_LOG(Error, "Kernel %s is already registered at priority %d", k.name_, priority);
      return Error::RegistrationAlreadyRegistered;
    }
  }
  if (new_entries > ETARM_MAX_KERNELS - g_num_kernels) {
    g_dropped += kernels.size();
    ET_LOG(Error, "Kernel registry full: %u more kernels (%s, ...) do not fit in its %d entries; build with "
           "--//runtime/core:max_kernels=%u or more", static_cast<unsigned>(new_entries), kernels[0].name_,
           ETARM_MAX_KERNELS, static_cast<unsigned>(g_num_kernels + new_entries));
    return Error::RegistrationExceedingMaxKernels;
  }
  for (const Kernel& k : kernels) {
    const long at = find_entry(k);
    if (at < 0) {
      g_priorities[g_num_kernels] = priority;
      g_kernels[g_num_kernels++] = k;
    } else if (priority > g_priorities[at]) {
      g_priorities[at] = priority;
      g_kernels[at] = k;
    }  // else: a lower priority than the kernel in place, which stays
  }
  return Error::Ok;
}

executorch::runtime::Result<int> registered_priority(const char* name, const char* key) {
  if (name == nullptr) {
    return Error::InvalidArgument;
  }
  const long at = find_entry(Kernel(name, key, nullptr));
  if (at < 0) {
    return Error::NotFound;
  }
  return g_priorities[at];
}

size_t kernel_registry_capacity() {
  return ETARM_MAX_KERNELS;
}

size_t kernel_registrations_dropped() {
  return g_dropped;
}

} // namespace core
} // namespace etarm
