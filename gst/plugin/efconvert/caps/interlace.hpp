// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert converts progressive frames only. A model input is one
// picture; an interlaced frame is two, taken a field period apart, and
// scaled as one picture its fields comb (25.9 dB against GstVideoConverter
// in NV12, where progressive frames reach 40). Scaling each field alone
// (videoscale's way) keeps them apart but still hands a model two moments
// woven together; making one picture of them is deinterlacing, which
// `deinterlace` does, with the methods to choose from. So interlaced caps
// are refused at negotiation, and in a `mixed` stream a frame flagged
// interlaced is a bad frame (max-errors), each with a message that names
// what was found and puts `deinterlace` before efconvert; the progressive
// frames of a mixed stream convert.
#pragma once

#include <gst/video/video.h>

#include <string>

namespace ef::gst {

// Why caps of `info` cannot be converted, or "" (progressive, mixed).
std::string interlace_problem(const GstVideoInfo &info);

// Why `buffer`, a frame of a stream of `info`, cannot be converted, or "".
std::string frame_interlace_problem(const GstVideoInfo &info, GstBuffer *buffer);

}  // namespace ef::gst
