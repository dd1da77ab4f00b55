// SPDX-License-Identifier: LGPL-2.1-or-later
// A GAP buffer (GST_BUFFER_FLAG_GAP: no data for its time, maybe no bytes
// at all: a demuxer's or a live source's filler) is no frame: converting,
// uploading or importing it would read nothing, or bytes that mean nothing,
// and an empty one would be refused as a bad frame (an offset past the end
// of 0 bytes). An element that reads frames forwards it as what the base
// classes let stand for it, a gap event of its timestamps, in order with
// its frames (through the element's own sink_event, which pushes what it
// holds first), and drops the buffer. Never counted as a bad frame.
#pragma once

#include <gst/base/gstbasetransform.h>

namespace ef::gst {

// True when `input` is a GAP buffer: taken (unreffed) and forwarded as a
// gap event of its PTS (its DTS where it has none) and duration; one with
// neither time is dropped. False otherwise: the caller goes on with it.
bool forward_gap_buffer(GstBaseTransform *trans, GstBuffer *input);

}  // namespace ef::gst
