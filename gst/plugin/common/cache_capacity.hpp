// SPDX-License-Identifier: LGPL-2.1-or-later
// The "cache-capacity" property, one meaning in every element: entries each
// of the element's import caches keeps, applied at once (a smaller capacity
// evicts the least recently used entries beyond it when it is set) and kept
// across caps changes.
#pragma once

#include <gst/gst.h>

namespace ef::gst {

// `what` says what the element's caches hold, e.g. "Imports (EGLImages of
// input buffers)"; it starts the blurb and must be a static string.
void install_cache_capacity_property(GObjectClass *klass, guint id, const char *what);

}  // namespace ef::gst
