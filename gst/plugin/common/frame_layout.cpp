// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_layout.hpp"

#include <algorithm>
#include <cerrno>
#include <string>

#include "drm_fourcc.hpp"

namespace ef::gst {

namespace {

// Bytes of one row of `plane` and its number of rows.
void plane_extent(const GstVideoInfo &info, guint plane, gsize &row_bytes, guint &rows) {
  row_bytes = 0;
  rows = 0;
  const GstVideoFormatInfo *finfo = info.finfo;
  for (guint c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS(finfo); ++c) {
    if (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) != plane)
      continue;
    gsize bytes =
        gsize(GST_VIDEO_INFO_COMP_WIDTH(&info, c)) * GST_VIDEO_INFO_COMP_PSTRIDE(&info, c);
    row_bytes = std::max(row_bytes, bytes);
    rows = std::max(rows, guint(GST_VIDEO_INFO_COMP_HEIGHT(&info, c)));
  }
}

Error invalid(std::string message) {
  return Error{EINVAL, std::move(message)};
}

}  // namespace

Result<FrameLayout> locate_planes(GstBuffer *buffer, const GstVideoInfo &caps_info) {
  FrameLayout layout;
  layout.info = caps_info;
  GstVideoInfo &info = layout.info;
  layout.n_planes = GST_VIDEO_INFO_N_PLANES(&info);

  if (GstVideoMeta *meta = gst_buffer_get_video_meta(buffer)) {
    if (meta->format != GST_VIDEO_INFO_FORMAT(&info) || meta->width != guint(info.width) ||
        meta->height != guint(info.height))
      return invalid(std::string("video meta says ") + gst_video_format_to_string(meta->format) +
                     " " + std::to_string(meta->width) + "x" + std::to_string(meta->height) +
                     " but the caps say " + GST_VIDEO_INFO_NAME(&info) + " " +
                     std::to_string(info.width) + "x" + std::to_string(info.height));
    for (guint p = 0; p < layout.n_planes; ++p) {
      info.stride[p] = meta->stride[p];
      info.offset[p] = meta->offset[p];
    }
  }

  const gsize total = gst_buffer_get_size(buffer);
  for (guint p = 0; p < layout.n_planes; ++p) {
    gsize row_bytes;
    guint rows;
    plane_extent(info, p, row_bytes, rows);
    const gint stride = info.stride[p];
    if (stride <= 0 || gsize(stride) < row_bytes)
      return invalid("plane " + std::to_string(p) + ": stride " + std::to_string(stride) +
                     " is smaller than a row of " + std::to_string(row_bytes) + " bytes");
    const gsize offset = info.offset[p];
    // A meta's stride and a caps height are each in range; their product and
    // the end of the plane need not be.
    gsize span = 0;
    if (rows == 0 || __builtin_mul_overflow(gsize(stride), gsize(rows - 1), &span) ||
        __builtin_add_overflow(span, row_bytes, &span))
      return invalid("plane " + std::to_string(p) + ": stride " + std::to_string(stride) +
                     " times " + std::to_string(rows) + " rows does not fit in memory");
    if (offset >= total)
      return invalid("plane " + std::to_string(p) + ": offset " + std::to_string(offset) +
                     " is past the end of the buffer (" + std::to_string(total) + " bytes)");
    if (span > total - offset)
      return invalid("buffer is truncated: plane " + std::to_string(p) + " needs bytes " +
                     std::to_string(offset) + " to " + std::to_string(offset + span) +
                     " but the buffer has " + std::to_string(total));
    guint idx, length;
    gsize skip;
    if (!gst_buffer_find_memory(buffer, offset, span, &idx, &length, &skip) || length != 1)
      return invalid("plane " + std::to_string(p) + " is split across memories");
    GstMemory *mem = gst_buffer_peek_memory(buffer, idx);
    layout.planes[p] = {idx, gsize(mem->offset) + skip, span};
  }
  return layout;
}

ImportLayout import_layout(const FrameLayout &layout) {
  ImportLayout l;
  l.width = GST_VIDEO_INFO_WIDTH(&layout.info);
  l.height = GST_VIDEO_INFO_HEIGHT(&layout.info);
  l.fourcc = drm_fourcc_from_video_format(GST_VIDEO_INFO_FORMAT(&layout.info));
  l.modifier = layout.modifier;
  l.n_planes = layout.n_planes;
  for (guint p = 0; p < layout.n_planes && p < kMaxPlanes; ++p) {
    l.offsets[p] = layout.planes[p].offset;
    l.strides[p] = guint32(layout.info.stride[p]);
  }
  return l;
}

}  // namespace ef::gst
