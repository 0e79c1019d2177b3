// FileDataLoader (extension/data_loader/file_data_loader.h) for Linux hosts: reads
// with pread() into buffers aligned as requested. Host-only: not part of //runtime/core.
#include <executorch/extension/data_loader/file_data_loader.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <new>

#include <c10/util/safe_numerics.h>
#include <executorch/runtime/platform/log.h>

namespace executorch {
namespace extension {

using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::Result;

namespace {
bool is_power_of_2(size_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}
void free_aligned(void* /*context*/, void* data, size_t /*size*/) {
  std::free(data);
}
// InvalidArgument unless [offset, offset + size) lies within the file.
Error check_range(size_t offset, size_t size, size_t file_size) {
  size_t end;
  ET_CHECK_OR_RETURN_ERROR(
      !c10::add_overflows(offset, size, &end) && end <= file_size,
      InvalidArgument,
      "Range [%zu, +%zu) exceeds the file (%zu bytes)",
      offset,
      size,
      file_size);
  return Error::Ok;
}
} // namespace

FileDataLoader::~FileDataLoader() {
  std::free(const_cast<char*>(file_name_));
  if (fd_ >= 0) {
    ::close(fd_);
  }
}

Result<FileDataLoader> FileDataLoader::from(const char* file_name, size_t alignment) {
  ET_CHECK_OR_RETURN_ERROR(file_name != nullptr, InvalidArgument, "No file name");
  ET_CHECK_OR_RETURN_ERROR(is_power_of_2(alignment), InvalidArgument, "Alignment %zu is not a power of 2", alignment);
  const int fd = ::open(file_name, O_RDONLY);
  if (fd < 0) {
    ET_LOG(Error, "Cannot open %s: %s", file_name, std::strerror(errno));
    return Error::AccessFailed;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ET_LOG(Error, "Cannot stat %s or not a regular file", file_name);
    ::close(fd);
    return Error::AccessFailed;
  }
  const size_t name_len = std::strlen(file_name);
  char* name = static_cast<char*>(std::malloc(name_len + 1));
  if (name == nullptr) {
    ::close(fd);
    return Error::MemoryAllocationFailed;
  }
  std::memcpy(name, file_name, name_len + 1);
  return FileDataLoader(fd, static_cast<size_t>(st.st_size), alignment, name);
}

Result<size_t> FileDataLoader::size() const {
  ET_CHECK_OR_RETURN_ERROR(fd_ >= 0, InvalidState, "Uninitialized");
  return file_size_;
}

Error FileDataLoader::load_into(size_t offset, size_t size, const SegmentInfo& segment_info, void* buffer) const {
  (void)segment_info;
  ET_CHECK_OR_RETURN_ERROR(fd_ >= 0, InvalidState, "Uninitialized");
  ET_CHECK_OR_RETURN_ERROR(buffer != nullptr, InvalidArgument, "Null buffer");
  ET_CHECK_OK_OR_RETURN_ERROR(check_range(offset, size, file_size_));
  auto* out = static_cast<uint8_t*>(buffer);
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd_, out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      ET_LOG(Error, "Reading %s failed at offset %zu", file_name_, offset + done);
      return Error::AccessFailed;
    }
    done += static_cast<size_t>(n);
  }
  return Error::Ok;
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size, const SegmentInfo& segment_info) const {
  ET_CHECK_OR_RETURN_ERROR(fd_ >= 0, InvalidState, "Uninitialized");
  ET_CHECK_OK_OR_RETURN_ERROR(check_range(offset, size, file_size_));
  if (size == 0) {
    return FreeableBuffer(nullptr, 0, nullptr);
  }
  const size_t alignment = static_cast<size_t>(alignment_) < sizeof(void*) ? sizeof(void*) : static_cast<size_t>(alignment_);
  void* data = nullptr;
  if (::posix_memalign(&data, alignment, size) != 0) {
    return Error::MemoryAllocationFailed;
  }
  const Error err = load_into(offset, size, segment_info, data);
  if (err != Error::Ok) {
    std::free(data);
    return err;
  }
  return FreeableBuffer(data, size, free_aligned);
}

} // namespace extension
} // namespace executorch
