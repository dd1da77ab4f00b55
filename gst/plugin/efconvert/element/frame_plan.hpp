// SPDX-License-Identifier: LGPL-2.1-or-later
// One frame's conversion plan from the settings copied for it: the source
// rectangle (crop meta, then the crop property), the turn, scaling and
// colours (convert_params).
#pragma once

#include <gst/video/video.h>

#include "efconvert/plan/convert_params.hpp"
#include "settings.hpp"
#include "stream.hpp"
#include "ef/result.hpp"

namespace ef::gst {

// video-direction=auto follows the stream's orientation tag.
GstVideoOrientationMethod effective_direction(const Settings &settings);

// The plan for `in` of `stream`. EINVAL for a crop with no pixels or
// outside the frame, and for tensor settings the negotiated tensor cannot
// take.
Result<ConvertParams> plan_frame(const Stream &stream, GstBuffer *in, const Settings &settings);

}  // namespace ef::gst
