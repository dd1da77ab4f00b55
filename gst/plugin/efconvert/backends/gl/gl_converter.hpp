// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend of efconvert: one shader pass that samples the source
// planes' textures and writes the converted, cropped, turned, scaled and
// letterboxed frame into a destination texture.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <array>
#include <memory>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"
#include "ef/result.hpp"

namespace ef::gst {

// Where an output's bytes lie in a "byte texture", whose rows are the
// output buffer's rows, `stride` bytes each: RGBA8 texels holding four
// consecutive bytes (byte 4i + k of a row in channel k of texel i, R first,
// as an AB24 EGLImage of the memory lies), or, where the stride is not a
// multiple of 4, R8 texels of one byte. Plane p starts at row offset[p] /
// stride (offsets are whole rows). Rendering into such a texture writes any
// packed or planar format, RGB and RGBP included, and an EGLImage of a memfd
// can be that texture, so the pass renders straight into the destination's
// memory. Only each plane's visible bytes are written: row padding keeps
// what it held.
struct ByteTarget {
  guint texture = 0;
  guint stride = 0;  // bytes per row
  guint rows = 0;    // texture height
  std::array<gsize, GST_VIDEO_MAX_PLANES> offset{};
  guint texel_bytes = 1;  // 4: RGBA8 texels, 1: R8 texels
  // Instead of `texture` and `offset`: each plane in a texture of its own,
  // width() texels wide and at least the output's height, the plane from
  // row 0 (an EGLImage of the memory at the plane's offset). A planar
  // output is then one draw into all three (a draw's colour attachments
  // must be separate images), sampling the source once for every plane.
  std::array<guint, 3> plane_textures{};
  // The textures are EGLImages of the output's own memory: drawn as
  // fragments, never image stores (llvmpipe's stores into an imported
  // image did not reach the memory, a wrong frame downstream).
  bool imported = false;

  // Four bytes a texel wherever a row is whole texels: a quarter of the
  // fragments to shade.
  static guint texel_bytes_for(guint stride) { return stride % 4 == 0 ? 4 : 1; }
  guint width() const { return stride / texel_bytes; }  // texels a row
  // The texture's format (GLenums): GL_RGBA8 / GL_RGBA or GL_R8 / GL_RED.
  guint gl_internal_format() const;
  guint gl_format() const;
  // The video format whose one plane of width() x rows is the texture
  // (RGBA or GRAY8), as EGL imports it.
  GstVideoFormat video_format() const;
};

// Inputs: NV12, I420, YUY2, UYVY, RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8, and the
// deep formats of gl_layout.hpp (P010_10LE, I420_10LE, ...) as 16-bit textures.
// Outputs: RGB, BGR, RGBA, BGRA, RGBx, BGRx, GRAY8, RGBP, BGRP.
//
// What comes out:
// - Colour: the source's matrix and range from ConvertParams (Kr/Kb as
//   GstVideoConverter takes them); chroma interpolated between its samples,
//   sited as the input's GstVideoInfo chroma_site says.
// - GRAY8 output, as GstVideoConverter and the CPU backend give it: a
//   BT.601 source's Y as stored (range included, chroma unused); from any
//   other source GRAY8's colorimetry, full-range BT.601 luma of the R'G'B'
//   (for a BT.709 or BT.2020 source composed with its matrix, unclamped);
//   the border is the fill colour's BT.601 luma.
// - Alpha: RGBA/BGRA sources keep theirs; all others come out opaque. The x
//   bytes of RGBx/BGRx outputs are 0xff.
// - Bilinear samples at pixel centres (the plan's map), clamped to the
//   crop; along a source axis where an output pixel spans more than 1.5
//   source pixels (chroma: 1.5 of its own samples), the exact mean over the
//   output pixel's footprint, a box whose edges weigh the texels they cut
//   (gl::kBoxFrom), at any reduction; a 1:1 copy (the content is the turned
//   crop, unscaled) and Nearest take whole source pixels, so RGB family to
//   RGB family at 1:1 is bit-exact.
//
// GL rules: create, render_* and the destructor's GL work run on the GL
// thread of `context` (the destructor marshals itself there). A render only
// issues GL commands: the caller fences or glFinish()es before the CPU, or
// another context, reads the destination. It restores the bound draw
// framebuffer, the viewport, the clear colour and the colour mask; it
// leaves the program
// (gst_gl_context_clear_shader), the vertex array, texture units 0..2 and
// their samplers unbound, GL_TEXTURE0 active and the scissor test off.
// How the pass runs: a fragment shader drawn into a framebuffer, or the same
// code as a compute shader storing whole RGBA8 texels (GL 4.3, GLES 3.1).
// Both write the same bytes. GPUs whose graphics units are a small part of
// the chip (an H200's) shade fragments many times slower than they compute;
// a software rasterizer computes many times slower than it rasterizes.
enum class PassStage { Fragment, Compute };

// Where a tensor goes (GlConverter::render_tensor): a buffer object holding
// gl::tensor_words(spec).bytes from byte `offset`, which is a multiple of
// the context's GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT.
struct TensorTarget {
  guint buffer = 0;
  gsize offset = 0;
};

class GlConverter {
 public:
  // Compiles the programs for in -> out. Call on the GL thread of `context`.
  // EINVAL for a format pair it cannot convert; ENOTSUP below GL 3.3 or
  // GLES 3.0. `in` gives the source textures' sizes and the chroma siting.
  // `stage` Compute on a context without compute shaders gives Fragment
  // (stage() says).
  static Result<std::unique_ptr<GlConverter>> create(GstGLContext *context, const GstVideoInfo &in,
                                                     const GstVideoInfo &out,
                                                     PassStage stage = PassStage::Fragment);
  // A converter that writes tensors of `tensor` (render_tensor), made of
  // the frame an RGB, BGR or GRAY8 output of the same pass would be. A
  // compute shader writes them: ENOTSUP where the context has none (below
  // GL 4.3, GLES 3.1) or it does not build.
  static Result<std::unique_ptr<GlConverter>> create_tensor(GstGLContext *context,
                                                            const GstVideoInfo &in,
                                                            const TensorSpec &tensor);
  // Whether `context` runs compute shaders (GL 4.3, GLES 3.1; its GLSL and
  // entry points). Any thread.
  static bool computes(GstGLContext *context);
  virtual ~GlConverter() = default;

  // With Compute, texels of a row that a render writes only in part (the
  // bytes at a box's edge inside a texel), R8 targets and, on GLES, targets
  // that are not immutable textures (GstGL's own, EGLImages) still go
  // through the fragment shader: image stores write whole texels of
  // immutable RGBA8 textures there.
  virtual PassStage stage() const = 0;
  // Compute dispatches issued so far (0 for the fragment stage).
  virtual guint64 dispatches() const = 0;

  // Source textures in GstGL's layout for the input format (NV12: R8 + RG8,
  // I420: 3 x R8, YUY2/UYVY: RG8 w x h, RGBA family: RGBA8, RGB/BGR: RGB8,
  // GRAY8: R8), one per plane, of GstGL's sizes for `in` (plane 0 the
  // frame's, chroma planes their component's). Their filter and wrap
  // parameters are not used (the converter binds its own sampler). YUY2 and
  // UYVY of an odd width lack the last V in that layout: the one before it
  // stands in, unless their texture is one pixel wider (gl::texture_info),
  // which holds it. All calls on the GL thread.
  virtual Result<void> render_bytes(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                    const ByteTarget &dst, const ConvertParams &params) = 0;
  // For RGBA, BGRA, RGBx, BGRx outputs as GstGLMemory: renders pixels into
  // an RGBA8 texture of the output's size, bytes in memory order (BGRA's
  // B in the red channel, as GstGL stores it).
  virtual Result<void> render_pixels(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                     guint dst_texture, const ConvertParams &params) = 0;
  // Tensor converters (create_tensor): the tensor of the frame, with
  // params.norm's values and channel order, as gl::tensor_words lays it
  // out, into `dst`, in one dispatch; a memory barrier after it orders it
  // before any later read of the buffer.
  virtual Result<void> render_tensor(const std::array<guint, GST_VIDEO_MAX_PLANES> &src,
                                     const TensorTarget &dst, const ConvertParams &params) = 0;
};

}  // namespace ef::gst
