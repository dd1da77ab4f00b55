// SPDX-License-Identifier: LGPL-2.1-or-later
// The one wall between C++ and the C ABI. A C caller cannot catch a C++
// exception, and one unwinding through its frames aborts the process, so every
// ef.h entry point runs its body through guarded(): an exception becomes an
// errno return with a last-error message (ENOMEM for an allocation failure).
#pragma once

#include <type_traits>

namespace ef::capi {

// Call only from a catch block: maps the exception in flight to an errno and
// records a message naming `fn`.
int failed_with_current_exception(const char *fn) noexcept;

// Entry points return int (the errno), a pointer or nothing; on an exception
// the int is the errno, a pointer is NULL, and the message is recorded either way.
template <typename Body>
auto guarded(const char *fn, Body &&body) noexcept -> std::invoke_result_t<Body> {
  using R = std::invoke_result_t<Body>;
  try {
    return body();
  } catch (...) {
    int code = failed_with_current_exception(fn);
    if constexpr (std::is_same_v<R, int>)
      return code;
    else if constexpr (!std::is_void_v<R>)
      return R{};
  }
}

}  // namespace ef::capi
