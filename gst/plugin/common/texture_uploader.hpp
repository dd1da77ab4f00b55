// SPDX-License-Identifier: LGPL-2.1-or-later
// The copy path into GL: a frame that cannot be imported is copied into a
// texture from a GstGLBufferPool. Shared by efupload and efconvert's GL
// backend; both count what it copies.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <vector>

#include "ef/result.hpp"

namespace ef::gst {

class TextureUploader {
 public:
  // Textures of the formats GstGL gives `info`'s planes; or of `formats`,
  // one per plane, for a format GstGL cannot describe on every version
  // (GStreamer 1.22 has no texture format for I420_10LE's planes, and
  // aborts when asked): those buffers are made here, a few in turn.
  TextureUploader(GstGLContext *context, const GstVideoInfo &info,
                  std::vector<GstGLFormat> formats = {});
  ~TextureUploader();
  TextureUploader(const TextureUploader &) = delete;
  TextureUploader &operator=(const TextureUploader &) = delete;

  // A pooled texture buffer for one frame of `info`.
  Result<GstBuffer *> acquire();
  // Copies the frame `in` into `out` (from acquire()). The texture uploads
  // when it is next mapped for GL. EINVAL when the input cannot be mapped
  // (the frame is bad), EIO when the texture cannot.
  Result<void> copy(GstBuffer *in, GstBuffer *out);

 private:
  GstGLContext *context_;
  Result<GstBuffer *> next_own();
  Result<void> copy_planes(GstBuffer *in, GstBuffer *out);

  GstVideoInfo info_;
  std::vector<GstGLFormat> formats_;
  GstBufferPool *pool_ = nullptr;
  std::vector<GstBuffer *> own_;  // with `formats`: buffers handed out in turn
  size_t next_ = 0;
};

}  // namespace ef::gst
