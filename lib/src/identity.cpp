// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "ef/fd_kind.hpp"

namespace ef {

namespace {

Error refuse(const FdFacts &facts, const std::string &why) {
  return Error{EINVAL, "fd (" + (facts.link.empty() ? std::string("?") : facts.link) +
                           ") has no buffer identity: " + why};
}

}  // namespace

std::string_view to_string(IdentityKind kind) {
  switch (kind) {
    case IdentityKind::DmaBuf:
      return "DmaBuf";
    case IdentityKind::Shm:
      return "Shm";
    case IdentityKind::IoSurface:
      return "IoSurface";
    case IdentityKind::AHardwareBufferId:
      return "AHardwareBufferId";
    case IdentityKind::AHardwareBufferPtr:
      return "AHardwareBufferPtr";
    case IdentityKind::D3d11Texture:
      return "D3d11Texture";
    case IdentityKind::HostPtr:
      return "HostPtr";
    case IdentityKind::Pbo:
      return "Pbo";
    case IdentityKind::VkImage:
      return "VkImage";
  }
  return "invalid";
}

std::string to_string(const BufferIdentity &identity) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ":%016" PRIx64, identity.id);
  return std::string(to_string(identity.kind)) + buf;
}

Result<BufferIdentity> classify_fd(const FdFacts &facts) {
  auto kind = buffer_fd_kind(facts);
  if (!kind)
    return refuse(facts, kind.error().message);
  const uint64_t key = inode_key(facts.st_dev, facts.st_ino);
  switch (*kind) {
    case FdKind::SharedDmaBuf:
      return refuse(facts, "anonymous inode shared by many objects (a pre-5.3 dma-buf)");
    case FdKind::DmaBuf:
      // Before Linux 5.3 a dma-buf has no inode of its own and reports size 0.
      if (facts.st_size == 0)
        return refuse(facts,
                      "dma-buf reports size 0 (pre-5.3 kernel: all dma-bufs share one inode)");
      return BufferIdentity::derived(IdentityKind::DmaBuf, key);
    case FdKind::Memfd:
    case FdKind::Shm:
      // An empty file owns no pages: every importer refuses size 0, so it
      // gets no identity a cache could be asked about.
      if (facts.st_size == 0)
        return refuse(facts, "size 0: an empty memfd or shm file holds no buffer");
      return BufferIdentity::derived(
          *kind == FdKind::Memfd ? IdentityKind::DmaBuf : IdentityKind::Shm, key);
  }
  return refuse(facts, "unknown kind of buffer");
}

Result<FdFacts> read_fd_facts(int fd) {
  if (fd < 0)
    return Error{EBADF, "fd " + std::to_string(fd) + " is not a file descriptor"};
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    return Error{err, "fstat(fd " + std::to_string(fd) + "): " + std::strerror(err)};
  }
  struct statfs sfs;
  if (fstatfs(fd, &sfs) != 0) {
    int err = errno;
    return Error{err, "fstatfs(fd " + std::to_string(fd) + "): " + std::strerror(err)};
  }
  FdFacts facts;
  facts.st_dev = st.st_dev;
  facts.st_ino = st.st_ino;
  facts.st_mode = st.st_mode;
  facts.st_size = st.st_size;
  facts.fs_magic = static_cast<int64_t>(sfs.f_type);
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  char link[512];
  ssize_t n = readlink(path, link, sizeof link - 1);
  if (n > 0)
    facts.link.assign(link, static_cast<size_t>(n));
  return facts;
}

Result<BufferIdentity> identity_from_fd(int fd) {
  auto facts = read_fd_facts(fd);
  if (!facts)
    return facts.error();
  return classify_fd(*facts);
}

Result<BufferIdentity> rederive_fd_identity(int fd, IdentityKind kind) {
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int err = fd < 0 ? EBADF : errno;
    return Error{err,
                 "fd " + std::to_string(fd) + " can no longer be examined: " + std::strerror(err)};
  }
  return BufferIdentity::derived(kind, inode_key(st.st_dev, st.st_ino));
}

Result<BufferIdentity> identity_from_host_ptr(const void *base) {
  if (base == nullptr)
    return Error{EINVAL, "host pointer is NULL: it names no allocation"};
  return BufferIdentity::derived(IdentityKind::HostPtr, reinterpret_cast<uintptr_t>(base));
}

Result<BufferIdentity> identity_from_gl_buffer(uint32_t name) {
  if (name == 0)
    return Error{EINVAL, "GL buffer name 0 names no buffer"};
  return BufferIdentity::derived(IdentityKind::Pbo, name);
}

Result<BufferIdentity> identity_from_vk_image(uint64_t handle) {
  if (handle == 0)
    return Error{EINVAL, "VkImage handle is VK_NULL_HANDLE"};
  return BufferIdentity::derived(IdentityKind::VkImage, handle);
}

}  // namespace ef
