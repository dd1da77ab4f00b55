// SPDX-License-Identifier: LGPL-2.1-or-later
// Buffer identities: a 64-bit name for "these bytes", derived from a system key
// so that every process, every dup and every independent build of this code
// names one buffer identically. See docs/ARCHITECTURE.md, "Identity".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ef/result.hpp"

namespace ef {

// Values are pinned: they enter the id, so renumbering changes every id ever
// derived. Append only. VkImage is this project's extension.
enum class IdentityKind : uint8_t {
  DmaBuf = 0,
  Shm = 1,
  IoSurface = 2,
  AHardwareBufferId = 3,
  AHardwareBufferPtr = 4,
  D3d11Texture = 5,
  HostPtr = 6,
  Pbo = 7,
  VkImage = 8,
};

inline constexpr uint32_t kIdentityKindCount = 9;

std::string_view to_string(IdentityKind kind);

struct BufferIdentity {
  IdentityKind kind;
  uint64_t id;

  // id = (kind << 56) ^ key. Deliberately no hash and no counter: the formula
  // is the contract that lets independent builds agree byte for byte.
  static constexpr BufferIdentity derived(IdentityKind kind, uint64_t key) {
    return {kind, (static_cast<uint64_t>(kind) << 56) ^ key};
  }

  friend constexpr bool operator==(const BufferIdentity &, const BufferIdentity &) = default;
};

std::string to_string(const BufferIdentity &identity);

// The key of an inode-backed buffer: (st_dev << 32) ^ st_ino.
constexpr uint64_t inode_key(uint64_t st_dev, uint64_t st_ino) {
  return (st_dev << 32) ^ st_ino;
}

// What identity_from_fd() reads about an fd; split out so the classification
// rules can be tested on facts no machine here can produce (a pre-5.3 dma-buf).
struct FdFacts {
  uint64_t st_dev = 0;
  uint64_t st_ino = 0;
  uint32_t st_mode = 0;
  int64_t st_size = 0;
  int64_t fs_magic = 0;  // statfs f_type
  std::string link;      // readlink("/proc/self/fd/N")
};

// DmaBuf for dma-bufs and memfds, Shm for POSIX shm (files of /dev/shm).
// Refuses (EINVAL) regular disk files, pipes, sockets, other tmpfs files,
// memfds and shm files of size 0, and the pre-5.3 case where every dma-buf
// shares one anonymous inode.
Result<BufferIdentity> classify_fd(const FdFacts &facts);

// fstat + fstatfs + readlink of the fd, then classify_fd(). EBADF for a closed fd.
Result<FdFacts> read_fd_facts(int fd);
Result<BufferIdentity> identity_from_fd(int fd);

// Re-derives the identity of an fd already known to be of `kind` (DmaBuf or
// Shm) with one fstat: the check made before every cache lookup, where the
// full classification was done once when the memory was first seen.
Result<BufferIdentity> rederive_fd_identity(int fd, IdentityKind kind);

// Process-local kinds. A null pointer, GL name 0 and VkImage 0 name nothing
// and are refused with EINVAL.
Result<BufferIdentity> identity_from_host_ptr(const void *base);
Result<BufferIdentity> identity_from_gl_buffer(uint32_t name);
Result<BufferIdentity> identity_from_vk_image(uint64_t handle);

}  // namespace ef

template <>
struct std::hash<ef::BufferIdentity> {
  size_t operator()(const ef::BufferIdentity &identity) const noexcept {
    return std::hash<uint64_t>{}(identity.id);
  }
};
