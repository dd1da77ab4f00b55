// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/fd_kind.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <string_view>

namespace ef {

namespace {

// Not in every linux/magic.h this project builds against.
constexpr int64_t kDmaBufMagic = 0x444d4142;
constexpr int64_t kAnonInodeMagic = 0x09041934;
constexpr int64_t kTmpfsMagic = 0x01021994;
constexpr int64_t kHugetlbfsMagic = 0x958458f6;

bool starts_with(const std::string &s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// What a file that is not a buffer is, in a user's words.
std::string file_type(const FdFacts &facts) {
  const uint32_t mode = facts.st_mode;
  if (facts.fs_magic == kAnonInodeMagic)
    return "an anonymous inode";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISFIFO(mode))
    return "a pipe";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISREG(mode))
    return facts.fs_magic == kTmpfsMagic || facts.fs_magic == kHugetlbfsMagic
               ? "a tmpfs file outside /dev/shm"
               : "a regular file";
  return "a file of unknown type";
}

}  // namespace

Result<FdKind> buffer_fd_kind(const FdFacts &facts) {
  if (facts.fs_magic == kDmaBufMagic)
    return FdKind::DmaBuf;
  if (facts.fs_magic == kAnonInodeMagic && facts.link == "anon_inode:dmabuf")
    return FdKind::SharedDmaBuf;
  if (S_ISREG(facts.st_mode) &&
      (facts.fs_magic == kTmpfsMagic || facts.fs_magic == kHugetlbfsMagic)) {
    if (starts_with(facts.link, "/memfd:"))
      return FdKind::Memfd;
    if (starts_with(facts.link, "/dev/shm/"))
      return FdKind::Shm;
  }
  return Error{EINVAL, file_type(facts) + " (" + (facts.link.empty() ? "?" : facts.link) +
                           "), not a dma-buf, memfd or shared-memory file"};
}

Result<FdKind> buffer_fd_kind(int fd) {
  auto facts = read_fd_facts(fd);
  if (!facts)
    return facts.error();
  auto kind = buffer_fd_kind(*facts);
  if (!kind)
    return Error{kind.error().code, "fd " + std::to_string(fd) + " is " + kind.error().message};
  return kind;
}

}  // namespace ef
