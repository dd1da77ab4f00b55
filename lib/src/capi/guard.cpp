// SPDX-License-Identifier: LGPL-2.1-or-later
#include "guard.hpp"

#include <cerrno>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

#include "status.hpp"

namespace ef::capi {

namespace {

// `fallback` (a literal) stands in when even the message cannot be built.
int report(int code, const char *fn, const char *what, const char *fallback) noexcept {
  try {
    return fail(code, std::string(fn) + ": " + what);
  } catch (...) {
    return fail_static(code, fallback);
  }
}

int errno_of(const std::system_error &e) {
  const auto &category = e.code().category();
  if ((category == std::generic_category() || category == std::system_category()) &&
      e.code().value() > 0)
    return e.code().value();
  return EIO;
}

}  // namespace

int failed_with_current_exception(const char *fn) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc &) {
    return report(ENOMEM, fn, "out of memory", "out of memory");
  } catch (const std::length_error &e) {
    return report(ENOMEM, fn, e.what(), "out of memory: a size beyond what can be allocated");
  } catch (const std::system_error &e) {
    return report(errno_of(e), fn, e.what(), "a system call failed (no memory for the message)");
  } catch (const std::exception &e) {
    return report(EIO, fn, e.what(), "internal error (no memory for the message)");
  } catch (...) {
    return report(EIO, fn, "internal error: an unknown exception", "internal error");
  }
}

}  // namespace ef::capi
