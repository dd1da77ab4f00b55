// SPDX-License-Identifier: LGPL-2.1-or-later
// Small fd utilities for the core tests.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace ef::test {

class ScopedFd {
 public:
  explicit ScopedFd(int fd = -1) : fd_(fd) {}
  ~ScopedFd() { reset(); }
  ScopedFd(ScopedFd &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  ScopedFd &operator=(ScopedFd &&o) noexcept {
    reset();
    fd_ = o.fd_;
    o.fd_ = -1;
    return *this;
  }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0)
      close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

inline ScopedFd make_memfd(const char *name, size_t size) {
  int fd = memfd_create(name, MFD_CLOEXEC);
  if (fd >= 0 && ftruncate(fd, static_cast<off_t>(size)) != 0) {
    close(fd);
    fd = -1;
  }
  return ScopedFd(fd);
}

// How many of this process's fds point at `link` (as readlink shows it).
inline int count_fds_linking(const std::string &link) {
  int n = 0;
  for (int fd = 0; fd < 4096; ++fd) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(path, buf, sizeof buf - 1);
    if (len > 0 && std::string(buf, static_cast<size_t>(len)) == link)
      ++n;
  }
  return n;
}

}  // namespace ef::test
