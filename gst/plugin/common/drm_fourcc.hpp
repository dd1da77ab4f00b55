// SPDX-License-Identifier: LGPL-2.1-or-later
// GStreamer video formats as DRM fourccs, the names EGL and Vulkan dma-buf
// imports (and import-cache keys) use.
#pragma once

#include <gst/video/video.h>

#include <cstdint>

namespace ef::gst {

// 0 for a format that has no single DRM fourcc.
uint32_t drm_fourcc_from_video_format(GstVideoFormat format);

}  // namespace ef::gst
