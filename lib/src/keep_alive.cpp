// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/keep_alive.hpp"

#include <cerrno>

namespace ef {

Result<KeepAlive> KeepAlive::from_client_state(const EfClientState &state) {
  if (state.retain == nullptr || state.release == nullptr)
    return Error{EINVAL, "EfClientState has a NULL retain or release callback"};
  auto *held = new EfClientState(state);
  held->retain(held->ctx);
  return KeepAlive(std::shared_ptr<const void>(held, [](const EfClientState *s) {
    s->release(s->ctx);
    delete s;
  }));
}

}  // namespace ef
