// SPDX-License-Identifier: LGPL-2.1-or-later
#pragma once

#include <gst/gst.h>

namespace ef::gst {

// Adds the "sink" and "src" always-pads of a one-in one-out element.
void add_pad_templates(GstElementClass *klass, const char *sink_caps, const char *src_caps);

}  // namespace ef::gst
