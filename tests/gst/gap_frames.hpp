// SPDX-License-Identifier: LGPL-2.1-or-later
// GAP buffers (GST_BUFFER_FLAG_GAP) through an element that reads frames:
// an empty one and a whole frame flagged GAP, between good frames. Each
// must leave as a gap event of its timestamps, in order with the frames,
// never as a bad frame (no ERROR, nothing dropped), and the frames after
// them must be right.
#pragma once

#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cstdint>
#include <functional>
#include <string>

namespace ef::test {

// Pushes into `h` (its element `element`, which takes frames of `info`):
// frame(1) at 0 ms, an empty GAP buffer at 40, frame(3) flagged GAP at 80,
// frame(4) and frame(5) at 120 and 160, each lasting 40 ms. What leaves the
// element's src pad must be: buffer 0, gap 40+40, gap 80+40, buffer 120,
// buffer 160; no ERROR on the bus, nothing counted as dropped; `check(out,
// seed)` is called with each frame that comes out.
void expect_gaps_forwarded(GstHarness *h, GstElement *element,
                           const std::function<GstBuffer *(uint32_t seed)> &frame,
                           const std::function<void(GstBuffer *out, uint32_t seed)> &check);

// The same for efconvert with `props` from NV12 64x48 in memfds to
// `out_caps` (null: the input's, attach-tensor): each frame out byte for byte
// a fresh element's of it.
void expect_convert_gaps_forwarded(const std::string &props, const char *out_caps);

}  // namespace ef::test
