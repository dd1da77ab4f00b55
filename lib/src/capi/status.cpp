// SPDX-License-Identifier: LGPL-2.1-or-later
#include "status.hpp"

#include "ef/ef.h"

namespace ef::capi {

namespace {
thread_local std::string last_error;
thread_local const char *last_static = nullptr;
}  // namespace

int fail(int code, std::string message) noexcept {
  last_error = std::move(message);
  last_static = nullptr;
  return code;
}

int fail_static(int code, const char *text) noexcept {
  last_error.clear();
  last_static = text;
  return code;
}

const char *last_error_text() noexcept {
  return last_static ? last_static : last_error.c_str();
}

int succeed() noexcept {
  last_error.clear();
  last_static = nullptr;
  return 0;
}

}  // namespace ef::capi

extern "C" const char *ef_last_error(void) {
  return ef::capi::last_error_text();
}
