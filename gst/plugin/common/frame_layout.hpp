// SPDX-License-Identifier: LGPL-2.1-or-later
// Where each plane of a video frame lies: which memory of the buffer, at
// which offset inside that memory, with which stride. Read from GstVideoMeta
// when present (decoders pad strides and heights), else from the caps.
// Every plane is checked to lie whole inside one memory, so an import can
// never read past a buffer.
#pragma once

#include <gst/video/video.h>

#include <array>

#include "ef/import_key.hpp"
#include "ef/result.hpp"

namespace ef::gst {

struct PlaneLocation {
  guint memory = 0;  // index in the buffer
  gsize offset = 0;  // from the start of that memory's allocation (fd offset)
  gsize size = 0;    // bytes the plane spans
};

struct FrameLayout {
  GstVideoInfo info;  // caps info with the buffer's real strides and offsets
  std::array<PlaneLocation, GST_VIDEO_MAX_PLANES> planes{};
  guint n_planes = 0;
  uint64_t modifier = kDrmFormatModLinear;  // from DMA_DRM caps; the caller sets it
};

// EINVAL naming the problem for: a stride smaller than a row, a plane offset
// past the end, a buffer smaller than its frame, a plane split across
// memories, a meta whose format or size disagrees with the caps.
Result<FrameLayout> locate_planes(GstBuffer *buffer, const GstVideoInfo &caps_info);

// The layout part of an import-cache key.
ImportLayout import_layout(const FrameLayout &layout);

}  // namespace ef::gst
