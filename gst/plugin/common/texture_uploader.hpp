// SPDX-License-Identifier: LGPL-2.1-or-later
// The copy path into GL: a frame that cannot be imported is copied into a
// texture from a GstGLBufferPool. Shared by efupload and efconvert's GL
// backend; both count what it copies.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include "ef/result.hpp"

namespace ef::gst {

class TextureUploader {
 public:
  TextureUploader(GstGLContext *context, const GstVideoInfo &info);
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
  GstVideoInfo info_;
  GstBufferPool *pool_ = nullptr;
};

}  // namespace ef::gst
