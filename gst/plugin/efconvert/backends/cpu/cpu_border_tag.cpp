// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_border_tag.hpp"

#include <gst/ef/gsteffdallocator.h>

#include <atomic>

namespace ef::gst::cpu {

BorderRows border_rows_of(const ConvertParams &params) {
  return {params.content.y, params.content.y + params.content.h, params.fill};
}

TensorBorderKey border_key(const uint8_t *data, const TensorSpec &spec, const ConvertParams &params,
                           bool vectorised, bool streams) {
  TensorBorderKey key;
  key.spec = spec;
  key.rows = border_rows_of(params);
  key.norm = params.norm;
  key.vectorised = vectorised;
  key.streams = streams;
  key.alignment = unsigned(reinterpret_cast<uintptr_t>(data) % 64);
  return key;
}

ImageBorderKey border_key(const GstVideoFrame &frame, const ConvertParams &params) {
  ImageBorderKey key;
  key.format = GST_VIDEO_FRAME_FORMAT(&frame);
  key.width = GST_VIDEO_FRAME_WIDTH(&frame);
  key.height = GST_VIDEO_FRAME_HEIGHT(&frame);
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
    key.strides[p] = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
    key.offsets[p] = GST_VIDEO_FRAME_PLANE_OFFSET(&frame, p);
  }
  key.rows = border_rows_of(params);
  return key;
}

uint64_t new_border_tag() {
  // Shared by every writer of the process, so that one's number never
  // names another's border.
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

uint64_t held_border_tag(GstBuffer *out) {
  return gst_buffer_n_memory(out) == 1 ? gst_ef_fd_memory_get_tag(gst_buffer_peek_memory(out, 0))
                                       : 0;
}

void tag_borders(GstBuffer *out, uint64_t tag) {
  if (gst_buffer_n_memory(out) == 1)
    gst_ef_fd_memory_set_tag(gst_buffer_peek_memory(out, 0), tag);
}

}  // namespace ef::gst::cpu
