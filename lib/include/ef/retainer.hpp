// SPDX-License-Identifier: LGPL-2.1-or-later
// A Retainer pins the source of an import (a dup'd fd, a ref on a GstMemory, a
// keep-alive anchor) so that the key the import is cached under cannot be
// recycled onto other bytes while the entry exists.
#pragma once

#include <memory>

#include "ef/result.hpp"

namespace ef {

class Retainer {
 public:
  Retainer() = default;

  // Holds a dup of fd; the dup is closed when the last copy of the retainer dies.
  static Result<Retainer> dup_fd(int fd);
  // Calls release(ctx) exactly once when the last copy dies.
  static Retainer from_release(void *ctx, void (*release)(void *ctx));
  static Retainer from_anchor(std::shared_ptr<const void> anchor) {
    return Retainer(std::move(anchor));
  }

  // False for a default-constructed retainer: nothing is pinned, and a cache
  // must not keep the import.
  bool holds() const { return anchor_ != nullptr; }
  explicit operator bool() const { return holds(); }

 private:
  explicit Retainer(std::shared_ptr<const void> anchor) : anchor_(std::move(anchor)) {}
  std::shared_ptr<const void> anchor_;
};

}  // namespace ef
