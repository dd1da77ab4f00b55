// SPDX-License-Identifier: LGPL-2.1-or-later
// A mapped video frame that owns its buffer, every byte (padding too) set
// to `sentinel` first, so that a byte one conversion writes and another
// does not shows when the two are compared.
#pragma once

#include <cstdint>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

namespace ef::test {

struct SentinelFrame {
  SentinelFrame(GstVideoFormat format, int w, int h, uint8_t sentinel) {
    gst_video_info_set_format(&info, format, guint(w), guint(h));
    GstBuffer *buffer = gst_buffer_new_allocate(nullptr, info.size, nullptr);
    gst_buffer_memset(buffer, 0, sentinel, info.size);
    fail_unless(gst_video_frame_map(&frame, &info, buffer, GST_MAP_READWRITE));
    gst_buffer_unref(buffer);  // the mapping holds it
  }
  ~SentinelFrame() { gst_video_frame_unmap(&frame); }
  SentinelFrame(const SentinelFrame &) = delete;
  SentinelFrame &operator=(const SentinelFrame &) = delete;
  const uint8_t *bytes() const { return static_cast<const uint8_t *>(frame.map[0].data); }

  GstVideoInfo info;
  GstVideoFrame frame{};
};

}  // namespace ef::test
