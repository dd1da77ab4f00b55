// SPDX-License-Identifier: LGPL-2.1-or-later
// A build without GstGL has no GL element, so no pipeline to share a GL
// display with and no GL context to outlive one.
#include "stress.hpp"

namespace ef::stress {

void Pipeline::share_gl_display() {}

bool gl_context_alive() {
  return false;
}

}  // namespace ef::stress
