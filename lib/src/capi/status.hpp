// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers shared by the C entry points: turning results into an errno return
// plus the thread-local last-error message.
#pragma once

#include <cerrno>
#include <string>

#include "ef/result.hpp"

namespace ef::capi {

// The message is built by the caller; storing it allocates nothing, so
// reporting a failure cannot itself fail.
int fail(int code, std::string message) noexcept;
inline int fail(const Error &error) {
  return fail(error.code, error.message);
}
// For when building a message is what failed: `text` must be a literal.
int fail_static(int code, const char *text) noexcept;
int succeed() noexcept;
const char *last_error_text() noexcept;

// EINVAL naming the argument when a required pointer is NULL.
#define EF_CAPI_REQUIRE(ptr, fn)                                \
  do {                                                          \
    if ((ptr) == nullptr)                                       \
      return ::ef::capi::fail(EINVAL, fn ": " #ptr " is NULL"); \
  } while (0)

}  // namespace ef::capi
