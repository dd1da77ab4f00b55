// SPDX-License-Identifier: LGPL-2.1-or-later
// KeepAlive: a shared anchor that keeps someone else's objects alive while any
// copy of it is reachable. Built from a C++ shared_ptr, or from the C ABI's
// EfClientState: retained once when stored, released exactly once when the
// last copy dies.
#pragma once

#include <memory>

#include "ef/ef.h"
#include "ef/result.hpp"

namespace ef {

class KeepAlive {
 public:
  static KeepAlive from_anchor(std::shared_ptr<const void> anchor) {
    return KeepAlive(std::move(anchor));
  }
  // EINVAL when retain or release is NULL; calls retain(ctx) once on success.
  static Result<KeepAlive> from_client_state(const EfClientState &state);

  // Copies share one anchor.
  long use_count() const { return anchor_.use_count(); }
  const void *get() const { return anchor_.get(); }

 private:
  explicit KeepAlive(std::shared_ptr<const void> anchor) : anchor_(std::move(anchor)) {}
  std::shared_ptr<const void> anchor_;
};

}  // namespace ef
