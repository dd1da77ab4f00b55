// SPDX-License-Identifier: LGPL-2.1-or-later
// The plugin "ef": zero-copy elements keyed by buffer identity.
#include <gst/gst.h>

#include "efconvert/element/gstefconvert.h"
#ifdef EF_HAVE_GSTGL
#include "efupload/gstefupload.h"
#endif
#ifdef EF_HAVE_VULKAN
#include "efvkbridge/gstefvkbridge.h"
#endif

static gboolean plugin_init(GstPlugin *plugin) {
  gboolean ok = GST_ELEMENT_REGISTER(efconvert, plugin);
#ifdef EF_HAVE_GSTGL
  ok &= GST_ELEMENT_REGISTER(efupload, plugin);
#endif
#ifdef EF_HAVE_VULKAN
  ok &= GST_ELEMENT_REGISTER(efvkbridge, plugin);
#endif
  return ok;
}

// The origin is meson's package-origin: GStreamer's own default ("Unknown
// package origin") where the builder names no URL, as ef has no website.
GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, ef,
                  "Zero-copy video elements with stable buffer identities", plugin_init, EF_VERSION,
                  "LGPL", "ef", EF_PACKAGE_ORIGIN)
