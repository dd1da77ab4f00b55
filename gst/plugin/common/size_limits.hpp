// SPDX-License-Identifier: LGPL-2.1-or-later
// The largest frame an element can handle, in its caps and in a clear error.
// Caps answered to peers are narrowed to the limit, so a source that can
// choose picks a size that works; caps that force a size beyond it are let
// through to set_caps, which refuses them naming the limit (negotiation
// would otherwise fail with nothing but "not negotiated").
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>

namespace ef::gst {

struct SizeLimit {
  gint max_side = G_MAXINT;  // widest and tallest frame, in pixels
  std::string what;          // "this GL context's maximum texture size"
};

// The CPU path: libyuv takes int widths and strides and computes plane
// offsets in int. No format ef takes has more than 4 bytes a pixel, so a side
// of at most 16384 keeps every stride, plane and frame under 1 GiB.
SizeLimit cpu_size_limit();

// The tighter of two limits.
SizeLimit tighter(SizeLimit a, SizeLimit b);

// Takes `caps`; returns it with each structure's width and height narrowed
// to [1, limit] where that leaves a size, only structures with memory
// `feature` when one is given. A structure whose sizes all lie beyond the
// limit is kept as it is.
GstCaps *narrow_to_limit(GstCaps *caps, const SizeLimit &limit, const char *feature = nullptr);

// For the first structure of fixed caps, read before any GstVideoInfo (which
// cannot describe such sizes): "" when within the limit, else e.g. "width
// 100000 exceeds this GL context's maximum texture size 16384".
std::string size_problem(GstCaps *caps, const SizeLimit &limit);

// Posts CORE/NEGOTIATION with `problem` and the caps; returns FALSE, for
// set_caps to return.
gboolean refuse_caps(GstElement *element, const std::string &problem, GstCaps *caps);

}  // namespace ef::gst
