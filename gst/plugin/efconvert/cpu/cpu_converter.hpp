// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend of efconvert: one fused pass built on libyuv.
#pragma once

#include <gst/video/video.h>

#include "efconvert/convert_params.hpp"
#include "ef/result.hpp"

namespace ef::gst {

// Formats the CPU backend reads and writes.
bool cpu_supports_input(GstVideoFormat format);
bool cpu_supports_output(GstVideoFormat format);

// Converts `src` into `dst` as `params` says: crop, turn, scale into the
// content rectangle, colour conversion, borders in params.fill. Writes every
// visible byte of dst. Large frames are split across `threads` workers.
// EINVAL for an unsupported format pair.
Result<void> cpu_convert(const GstVideoFrame &src, GstVideoFrame &dst, const ConvertParams &params,
                         unsigned threads);

}  // namespace ef::gst
