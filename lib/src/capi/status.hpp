// SPDX-License-Identifier: LGPL-2.1-or-later
// Helpers shared by the C entry points: turning results into an errno return
// plus the thread-local last-error message.
#pragma once

#include <cerrno>
#include <string>

#include "ef/result.hpp"

namespace ef::capi {

int fail(int code, std::string message);
inline int fail(const Error &error) {
  return fail(error.code, error.message);
}
int succeed();
const char *last_error_text();

// EINVAL naming the argument when a required pointer is NULL.
#define EF_CAPI_REQUIRE(ptr, fn)                                \
  do {                                                          \
    if ((ptr) == nullptr)                                       \
      return ::ef::capi::fail(EINVAL, fn ": " #ptr " is NULL"); \
  } while (0)

}  // namespace ef::capi
