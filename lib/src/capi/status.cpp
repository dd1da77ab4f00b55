// SPDX-License-Identifier: LGPL-2.1-or-later
#include "status.hpp"

#include "ef/ef.h"

namespace ef::capi {

namespace {
thread_local std::string last_error;
}

int fail(int code, std::string message) {
  last_error = std::move(message);
  return code;
}

const char *last_error_text() {
  return last_error.c_str();
}

int succeed() {
  last_error.clear();
  return 0;
}

}  // namespace ef::capi

extern "C" const char *ef_last_error(void) {
  return ef::capi::last_error_text();
}
