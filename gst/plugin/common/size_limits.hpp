// SPDX-License-Identifier: LGPL-2.1-or-later
// The largest frame an element can handle, in its caps and in a clear
// message. Caps answered to a negotiation (a caps query with a filter) are
// narrowed to the limit, so a source that can choose picks a size that
// works, and a source that offers only sizes beyond it gets an empty answer
// and an error naming the limit. An unfiltered caps query (a link
// check, gst-inspect-like questions) gets the full range, so that
// `src ! video/x-raw,width=20000 ! efconvert` links and negotiation names
// the limit rather than gst-launch saying "could not link". Caps sent without
// a query (appsrc, a harness) reach set_caps, which refuses them naming it.
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

// narrow_to_limit() for the answer to a caps query with `filter`: none
// (an unfiltered query) leaves `caps` as they are. Takes `caps`.
GstCaps *narrow_for_query(GstCaps *caps, GstCaps *filter, const SizeLimit &limit,
                          const char *feature = nullptr);

// After a sink pad's CAPS query was answered: where everything upstream
// asked about (each structure of the query's filter) is fixed at a size
// beyond `limit`, the answer becomes empty (set_caps would refuse such caps)
// and an error names the limit, once per element run and size. A source
// negotiates by caps query and sends no caps it was refused, so this is
// where the limit can be named, before its "not-negotiated".
void refuse_size_in_caps_query(GstElement *element, GstQuery *query, const SizeLimit &limit);

// For the first structure of fixed caps, read before any GstVideoInfo (which
// cannot describe such sizes): "" when within the limit, else e.g. "width
// 100000 exceeds this GL context's maximum texture size 16384".
std::string size_problem(GstCaps *caps, const SizeLimit &limit);

// Posts CORE/NEGOTIATION with `problem` and the caps; returns FALSE, for
// set_caps to return.
gboolean refuse_caps(GstElement *element, const std::string &problem, GstCaps *caps);

}  // namespace ef::gst
