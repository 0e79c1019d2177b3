// Kernel and backend registries: fixed-size tables filled at static-initialisation time
// (no heap). Sizes can be changed with -DETARM_MAX_KERNELS=N / -DETARM_MAX_BACKENDS=N.
#include <cstring>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/log.h>

#ifndef ETARM_MAX_KERNELS
#define ETARM_MAX_KERNELS 256
#endif
#ifndef ETARM_MAX_BACKENDS
#define ETARM_MAX_BACKENDS 8
#endif

namespace executorch {
namespace ET_RUNTIME_NAMESPACE {
namespace {

Kernel g_kernels[ETARM_MAX_KERNELS];
size_t g_num_kernels = 0;

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
  if (kernels.size() > ETARM_MAX_KERNELS - g_num_kernels) {
    ET_LOG(Error, "Kernel registry full (%d entries)", ETARM_MAX_KERNELS);
    return Error::RegistrationExceedingMaxKernels;
  }
  for (const Kernel& k : kernels) {
    if (k.name_ == nullptr || k.op_ == nullptr) {
      return Error::InvalidArgument;
    }
    for (size_t i = 0; i < g_num_kernels; ++i) {
      if (std::strcmp(g_kernels[i].name_, k.name_) == 0 && g_kernels[i].kernel_key_ == k.kernel_key_) {
        ET_LOG(Error, "Kernel %s is already registered", k.name_);
        return Error::RegistrationAlreadyRegistered;
      }
    }
  }
  for (const Kernel& k : kernels) {
    g_kernels[g_num_kernels++] = k;
  }
  return Error::Ok;
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
    ET_LOG(Error, "Missing operator: %s", name);
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
