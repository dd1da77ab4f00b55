// SPDX-License-Identifier: LGPL-2.1-or-later
// Input frames of the stress cases and the reference they are checked against.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <string>

namespace ef::stress {

enum class Memory {
  Memfd,   // a fresh memfd per frame, owned by its GstFdMemory
  System,  // plain system memory
};

// A frame of ramps in R, G and B (shifted by `phase`, so frames differ),
// converted by GstVideoConverter into `info`'s format and layout (padded
// strides and offsets honoured, described by a GstVideoMeta).
GstBuffer *ramp_frame(const GstVideoInfo &info, Memory memory, uint32_t phase);

// The same frame written into `fd` (a slot of an application's ring) and
// wrapped in a new GstFdMemory that leaves the fd open (DONT_CLOSE), as an
// application re-wrapping its ring every frame does.
GstBuffer *ramp_frame_in_fd(int fd, const GstVideoInfo &info, uint32_t phase);

// `in` converted and scaled to `out` by GstVideoConverter (linear filters):
// what a correct converter gives, to within filter differences.
GstBuffer *reference(GstBuffer *in, const GstVideoInfo &in_info, const GstVideoInfo &out);

// PSNR of `got` against `want`, each mapped with its GstVideoMeta or `info`.
double psnr(GstBuffer *got, const GstVideoInfo &got_info, GstBuffer *want,
            const GstVideoInfo &want_info);

// "NV12 33x17 (stride 36)" for case names and messages.
std::string describe(const GstVideoInfo &info);
// "NV12_33x17": a case name part.
std::string name_of(GstVideoFormat format, guint width, guint height);

GstVideoInfo video_info(GstVideoFormat format, guint width, guint height);

}  // namespace ef::stress
