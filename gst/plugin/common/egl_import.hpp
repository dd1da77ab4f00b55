// SPDX-License-Identifier: LGPL-2.1-or-later
// The import efupload caches: one EGLImage per plane of an fd-backed frame
// (EGL_EXT_image_dma_buf_import), each bound to a texture wrapped as a
// GstGLMemoryEGL. Made once per buffer of a ring; every later frame in the
// same memory re-uses the textures.
#pragma once

#include <gst/gl/egl/gsteglimage.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <array>
#include <vector>

#include "common/frame_layout.hpp"
#include "ef/result.hpp"

namespace ef::gst {

class EglImport {
 public:
  EglImport() = default;
  EglImport(EglImport &&other) noexcept;
  EglImport &operator=(EglImport &&other) noexcept;
  EglImport(const EglImport &) = delete;
  EglImport &operator=(const EglImport &) = delete;
  ~EglImport();

  // Imports each plane of `buffer` as laid out in `layout` (its real
  // strides and offsets); the textures are described by `caps_info`, whose
  // tight strides GstGL reads as texture widths. The plane memories must be
  // fd memories.
  static Result<EglImport> create(GstGLContext *context, GstBuffer *buffer,
                                  const FrameLayout &layout, const GstVideoInfo &caps_info);

  // Appends a ref to each texture memory to `out` and the GL video meta
  // describing them. Marks each memory as needing a fresh download, since
  // the bytes behind the texture change with every frame in this memory.
  void attach_to(GstBuffer *out) const;

  // The GL texture of each plane, for sampling or rendering on the GL thread.
  std::array<guint, GST_VIDEO_MAX_PLANES> textures() const;

 private:
  std::vector<GstEGLImage *> images_;
  std::vector<GstMemory *> memories_;  // GstGLMemoryEGL, one per plane
  GstVideoInfo out_info_{};
  std::array<gsize, GST_VIDEO_MAX_PLANES> meta_offsets_{};
  std::array<gint, GST_VIDEO_MAX_PLANES> meta_strides_{};
};

// Whether the display of `context` can import dma-bufs at all.
bool egl_dmabuf_import_available(GstGLContext *context);

}  // namespace ef::gst
