// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend of efconvert: one shader pass that samples the source
// planes' textures and writes the converted, cropped, turned, scaled and
// letterboxed frame into a destination texture.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <array>
#include <memory>

#include "efconvert/convert_params.hpp"
#include "ef/result.hpp"

namespace ef::gst {

// Where an output's bytes lie in a "byte texture": a GL_R8 texture one texel
// per byte, `stride` texels wide and `rows` high, whose rows are the output
// buffer's rows. Plane p starts at row offset[p] / stride (offsets are whole
// rows). Rendering into such a texture writes any packed or planar format,
// RGB and RGBP included, and an EGLImage of a memfd can be that texture,
// so the pass renders straight into the destination's memory.
struct ByteTarget {
  guint texture = 0;
  guint stride = 0;  // bytes per row, = texture width
  guint rows = 0;    // texture height
  std::array<gsize, GST_VIDEO_MAX_PLANES> offset{};
};

class GlConverter {
 public:
  // Compiles the programs for in -> out. Call on the GL thread of `context`.
  // EINVAL for a format pair it cannot convert.
  static Result<std::unique_ptr<GlConverter>> create(GstGLContext *context, const GstVideoInfo &in,
                                                     const GstVideoInfo &out);
  virtual ~GlConverter() = default;

  // Source textures in GstGL's layout for the input format (NV12: R8 + RG8,
  // I420: 3 x R8, YUY2/UYVY: RG8 w x h, RGBA family: RGBA8, RGB/BGR: RGB8,
  // GRAY8: R8), one per plane. All calls on the GL thread.
  virtual Result<void> render_bytes(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                    const ByteTarget &dst, const ConvertParams &params) = 0;
  // For RGBA, BGRA, RGBx, BGRx outputs as GstGLMemory: renders pixels into
  // an RGBA8 texture of the output's size.
  virtual Result<void> render_pixels(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                     guint dst_texture, const ConvertParams &params) = 0;
};

}  // namespace ef::gst
