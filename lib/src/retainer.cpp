// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/retainer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ef {

Result<Retainer> Retainer::dup_fd(int fd) {
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) {
    int err = errno;
    return Error{err, "cannot retain fd " + std::to_string(fd) + ": " + std::strerror(err)};
  }
  auto *held = new int(copy);
  return Retainer(std::shared_ptr<const void>(held, [](const int *p) {
    close(*p);
    delete p;
  }));
}

Retainer Retainer::from_release(void *ctx, void (*release)(void *ctx)) {
  // A non-null anchor is needed even for ctx == nullptr, so the retainer holds.
  struct Held {
    void *ctx;
    void (*release)(void *);
  };
  auto *held = new Held{ctx, release};
  return Retainer(std::shared_ptr<const void>(held, [](const Held *h) {
    h->release(h->ctx);
    delete h;
  }));
}

}  // namespace ef
