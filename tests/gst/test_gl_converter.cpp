// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend of efconvert below the element: sources uploaded by GstGL,
// one pass into a byte texture, read back and compared with GstVideoConverter
// on the same frame. Every input x output pair; directions, methods,
// colorimetries, borders, odd sizes; the pass into a memfd's EGLImage.
#include <gst/gl/egl/gsteglimage.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/video/video.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

// After the standard headers: gstcheck.h defines fail(), a name the C++
// streams declare too.
#include "box_reference.hpp"
#include "check_gl_main.hpp"
#include "gl_test_context.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "common/gst_ptr.hpp"
#include "common/texture_uploader.hpp"
#include "efconvert/backends/gl/gl_converter.hpp"
#include "efconvert/backends/gl/gl_layout.hpp"
#include "efconvert/backends/gl/gl_tensor_words.hpp"
#include "efconvert/backends/gl/gl_texture_storage.hpp"
#include "frames.hpp"

namespace {

using ef::gst::BufferPtr;
using ef::gst::ByteTarget;
using ef::gst::ConvertParams;
using ef::gst::GlConverter;
using ef::gst::ObjectPtr;
using ef::gst::PassStage;
using ef::gst::ScaleMethod;
using ef::gst::TensorSpec;
using ef::gst::TensorType;
namespace gl = ef::gst::gl;

constexpr GstVideoFormat kInputs[] = {
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_GRAY8,
    // Deep sources, 16-bit textures: the sample in the high bits (P010) or
    // the low bits, 4:2:0, 4:2:2 and 4:4:4. NV12_10LE40, unpacked into
    // P010 by the backend, is the element tests'.
    GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_I422_10LE,
    GST_VIDEO_FORMAT_Y444_12LE};
constexpr GstVideoFormat kOutputs[] = {
    GST_VIDEO_FORMAT_RGB,   GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_BGRA,  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP};
constexpr GstVideoOrientationMethod kDirections[] = {
    GST_VIDEO_ORIENTATION_IDENTITY, GST_VIDEO_ORIENTATION_90R,   GST_VIDEO_ORIENTATION_180,
    GST_VIDEO_ORIENTATION_90L,      GST_VIDEO_ORIENTATION_HORIZ, GST_VIDEO_ORIENTATION_VERT,
    GST_VIDEO_ORIENTATION_UL_LR,    GST_VIDEO_ORIENTATION_UR_LL};

bool is_rgb_family(GstVideoFormat format) {
  return GST_VIDEO_FORMAT_INFO_IS_RGB(gst_video_format_get_info(format));
}

std::string format_name(GstVideoFormat format) {
  return gst_video_format_to_string(format);
}

// ---------------------------------------------------------------------------
// GL plumbing

struct GlContext : ef::test::TestGlContext {
  const GstGLFuncs *gl() const { return context->gl_vtable; }

  // Whether this context reads `format`: a deep source needs 16-bit
  // textures, which a GLES 3.0 context may lack (Mesa 26 with
  // MESA_GLES_VERSION_OVERRIDE=3.0: no EXT_texture_norm16).
  bool reads(GstVideoFormat format) const {
    const auto source = ef::gst::gl::source_layout(format);
    return !source || !source->deep ||
           (gst_gl_format_is_supported(context.get(), GST_GL_R16) &&
            gst_gl_format_is_supported(context.get(), GST_GL_RG16));
  }

  // Runs `work` on the GL thread and waits for it.
  void run(const std::function<void()> &work) const {
    gst_gl_context_thread_add(
        context.get(),
        [](GstGLContext *, gpointer data) {
          (*static_cast<const std::function<void()> *>(data))();
        },
        const_cast<std::function<void()> *>(&work));
  }
};

// Whether the converter's GLSL on this context has textureGather: GLSL
// 4.00 on desktop GL, ES 3.10 (the converter's glsl_for picks so).
bool context_gathers(const GlContext &gl) {
  GstGLContext *context = gl.context.get();
  if (gst_gl_context_get_gl_api(context) & GST_GL_API_GLES2)
    return gst_gl_context_check_gl_version(context, GST_GL_API_GLES2, 3, 1);
  return gst_gl_context_supports_glsl_profile_version(context, GST_GLSL_VERSION_400,
                                                      GST_GLSL_PROFILE_CORE) ||
         gst_gl_context_supports_glsl_profile_version(context, GST_GLSL_VERSION_400,
                                                      GST_GLSL_PROFILE_COMPATIBILITY);
}

// The pass stage the tests run: EF_TEST_GL_PASS=compute runs them all with
// the compute shader, as a GPU whose fragments are slow takes them.
PassStage test_stage() {
  const char *pass = g_getenv("EF_TEST_GL_PASS");
  return pass && std::string(pass) == "compute" ? PassStage::Compute : PassStage::Fragment;
}

// An immutable RGBA8 texture (glTexStorage2D: GL 4.2, GLES 3.0), which GLES
// binds as an image; GL_RGBA8 of glTexImage2D elsewhere.
void allocate_rgba8(const GlContext &gl, guint width, guint height, bool immutable) {
  if (immutable)
    ef::gst::allocate_texture_2d(gl.context.get(), GL_RGBA8, GL_RGBA, gint(width), gint(height),
                                 nullptr);
  else
    gl.gl()->TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, GLsizei(width), GLsizei(height), 0, GL_RGBA,
                        GL_UNSIGNED_BYTE, nullptr);
}

// A texture made and read back here: the byte target of render_bytes
// (RGBA8 or R8 texels) or the RGBA8 target of render_pixels. RGBA8 ones
// are immutable unless `mutable_rgba` (GstGL's own textures are not).
class TestTexture {
 public:
  TestTexture(const GlContext &gl, guint width, guint height, bool rgba, bool mutable_rgba = false)
      : gl_(gl), width_(width), height_(height), rgba_(rgba) {
    gl.run([&] {
      const GstGLFuncs *f = gl.gl();
      // A sentinel shows bytes the pass should not have written.
      std::vector<guint8> sentinel(bytes(), kSentinel);
      f->GenTextures(1, &texture_);
      f->BindTexture(GL_TEXTURE_2D, texture_);
      f->PixelStorei(GL_UNPACK_ALIGNMENT, 1);
      // Complete without mipmaps, as GstGL's textures are.
      f->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
      if (rgba) {
        allocate_rgba8(gl, width, height, !mutable_rgba);
        f->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, GLsizei(width), GLsizei(height), GL_RGBA,
                         GL_UNSIGNED_BYTE, sentinel.data());
      } else {
        f->TexImage2D(GL_TEXTURE_2D, 0, GL_R8, GLsizei(width), GLsizei(height), 0, GL_RED,
                      GL_UNSIGNED_BYTE, sentinel.data());
      }
      // Back to the default: GstGL uploads RGB with a row length that
      // counts on an alignment of 4.
      f->PixelStorei(GL_UNPACK_ALIGNMENT, 4);
      f->BindTexture(GL_TEXTURE_2D, 0);
    });
  }
  ~TestTexture() {
    gl_.run([&] { gl_.gl()->DeleteTextures(1, &texture_); });
  }
  TestTexture(const TestTexture &) = delete;
  TestTexture &operator=(const TestTexture &) = delete;

  static constexpr guint8 kSentinel = 0xa5;
  guint texture() const { return texture_; }
  gsize bytes() const { return gsize(width_) * height_ * (rgba_ ? 4 : 1); }

  // Reads the texture back through a framebuffer. Call on the GL thread.
  std::vector<guint8> read() const {
    const GstGLFuncs *f = gl_.gl();
    std::vector<guint8> data(bytes());
    GLuint fbo = 0;
    f->GenFramebuffers(1, &fbo);
    f->BindFramebuffer(GL_FRAMEBUFFER, fbo);
    f->FramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture_, 0);
    f->PixelStorei(GL_PACK_ALIGNMENT, 1);
    f->ReadPixels(0, 0, GLsizei(width_), GLsizei(height_), rgba_ ? GL_RGBA : GL_RED,
                  GL_UNSIGNED_BYTE, data.data());
    f->PixelStorei(GL_PACK_ALIGNMENT, 4);
    f->BindFramebuffer(GL_FRAMEBUFFER, 0);
    f->DeleteFramebuffers(1, &fbo);
    return data;
  }

 private:
  const GlContext &gl_;
  guint width_, height_;
  bool rgba_;
  GLuint texture_ = 0;
};

// A frame uploaded as the backend uploads it (TextureUploader): into
// GstGL's own textures (GstGLBufferPool's layout, which is what efupload and
// glupload hand downstream), planar deep sources into R16 textures of ours.
class GlFrame {
 public:
  GlFrame(const GlContext &gl, const GstVideoFrame &source) {
    GstVideoInfo info = source.info;
    const auto layout = ef::gst::gl::source_layout(GST_VIDEO_INFO_FORMAT(&info));
    std::vector<GstGLFormat> formats;
    if (layout && layout->deep && layout->kind == ef::gst::gl::SourceKind::Planar)
      formats.assign(layout->n_textures, GST_GL_R16);
    uploader_ = std::make_unique<ef::gst::TextureUploader>(gl.context.get(), info, formats);
    auto buffer = uploader_->acquire();
    fail_unless(buffer.ok(), "%s", buffer.ok() ? "" : buffer.error().message.c_str());
    buffer_.reset(*buffer);
    // Written through the CPU mapping; mapping for GL then uploads.
    auto copied = uploader_->copy(source.buffer, buffer_.get());
    fail_unless(copied.ok(), "%s", copied.ok() ? "" : copied.error().message.c_str());
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
      GstMemory *mem = gst_buffer_peek_memory(buffer_.get(), p);
      fail_unless(gst_memory_map(mem, &maps_[p], GstMapFlags(GST_MAP_READ | GST_MAP_GL)));
      textures_[p] = *reinterpret_cast<guint *>(maps_[p].data);
      ++mapped_;
    }
  }
  ~GlFrame() {
    for (guint p = 0; p < mapped_; ++p)
      gst_memory_unmap(maps_[p].memory, &maps_[p]);
    buffer_.reset();
  }
  GlFrame(const GlFrame &) = delete;
  GlFrame &operator=(const GlFrame &) = delete;

  const std::array<guint, GST_VIDEO_MAX_PLANES> &textures() const { return textures_; }

 private:
  std::unique_ptr<ef::gst::TextureUploader> uploader_;
  BufferPtr buffer_;
  std::array<GstMapInfo, GST_VIDEO_MAX_PLANES> maps_{};
  guint mapped_ = 0;
  std::array<guint, GST_VIDEO_MAX_PLANES> textures_{};
};

// ---------------------------------------------------------------------------
// Frames in system memory

// A mapped system-memory frame that unmaps and frees itself.
class Frame {
 public:
  explicit Frame(const GstVideoInfo &info) : info_(info) {
    buffer_.reset(gst_buffer_new_allocate(nullptr, info.size, nullptr));
    gst_buffer_memset(buffer_.get(), 0, 0xff, info.size);  // x bytes of RGBx read as opaque
    fail_unless(gst_video_frame_map(&frame_, &info_, buffer_.get(), GST_MAP_READWRITE));
  }
  ~Frame() { gst_video_frame_unmap(&frame_); }
  Frame(const Frame &) = delete;
  Frame &operator=(const Frame &) = delete;

  GstVideoFrame *get() { return &frame_; }
  const GstVideoFrame *get() const { return &frame_; }
  const GstVideoInfo &info() const { return frame_.info; }
  guint8 &at(guint comp, gint x, gint y) {
    return static_cast<guint8 *>(
        GST_VIDEO_FRAME_COMP_DATA(&frame_, comp))[y * GST_VIDEO_FRAME_COMP_STRIDE(&frame_, comp) +
                                                  x * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame_, comp)];
  }
  guint8 at(guint comp, gint x, gint y) const { return const_cast<Frame *>(this)->at(comp, x, y); }
  // All planes, as laid out in the one system memory.
  guint8 *bytes() { return static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&frame_, 0)); }
  gsize size() const { return frame_.info.size; }

 private:
  GstVideoInfo info_;
  BufferPtr buffer_;
  GstVideoFrame frame_;
};

enum class Content { Smooth, Noise, ZonePlate, ColourStep };

// A zone plate in every component: videotestsrc's pattern=zone-plate with
// kx2=20 ky2=20 (rings whose frequency rises to 20/256 cycles a pixel at
// the edges, past the Nyquist limit of an 8x reduction), grey like
// videotestsrc's. A colour step: a slanted edge between a red and a blue,
// in every component at its own resolution.
double edge_content(Content content, guint c, double X, double Y, const GstVideoInfo &info) {
  const double w = GST_VIDEO_INFO_WIDTH(&info), h = GST_VIDEO_INFO_HEIGHT(&info);
  if (content == Content::ZonePlate) {
    constexpr double k2 = 20.0 / 256;  // videotestsrc's kx2 and ky2 in cycles
    const double dx = X - w / 2, dy = Y - h / 2;
    const double turns = k2 * (dx * dx / w + dy * dy / h);
    return c == 0 ? 128 + 100 * std::cos(2 * M_PI * turns) : 128;
  }
  static constexpr std::array<double, 3> kRed{81, 90, 240}, kBlue{41, 240, 110};
  const bool left = X < 0.37 * w + 0.21 * Y;
  return left ? kRed[std::min(c, 2u)] : kBlue[std::min(c, 2u)];
}

// Smooth: sums of slow waves (periods of 80 pixels and more), where a
// bilinear sample, GstVideoConverter's wider downscaling kernel and its
// corner-to-corner upscale agree within a few levels, as on camera frames.
// Noise: every byte different, what shows a pixel taken from the wrong place.
void fill_content(Frame &frame, Content content, uint32_t seed) {
  if (content == Content::Noise) {
    ef::test::fill_frame(frame.get(), seed);
    return;
  }
  const GstVideoInfo &info = frame.info();
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c) {
    const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB(info.finfo, c);
    const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB(info.finfo, c);
    for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, c); ++y)
      for (gint x = 0; x < GST_VIDEO_INFO_COMP_WIDTH(&info, c); ++x) {
        const double X = double(x << ws), Y = double(y << hs);
        if (content != Content::Smooth) {
          // At the sample's centre, in luma pixels.
          const double v =
              edge_content(content, c, X + 0.5 * (1u << ws), Y + 0.5 * (1u << hs), info);
          frame.at(c, x, y) = guint8(std::clamp(std::lround(v), 0L, 255L));
          continue;
        }
        const double v = 128 + 70 * std::sin(0.08 * X + 0.03 * Y + 1.7 * c + seed) +
                         40 * std::cos(0.025 * X - 0.07 * Y + 0.9 * c);
        frame.at(c, x, y) = guint8(std::clamp(std::lround(v), 0L, 255L));
      }
  }
}

GstVideoInfo video_info(GstVideoFormat format, guint width, guint height,
                        const char *colorimetry = nullptr) {
  GstVideoInfo info;
  fail_unless(gst_video_info_set_format(&info, format, width, height));
  if (colorimetry)
    fail_unless(gst_video_colorimetry_from_string(&info.colorimetry, colorimetry));
  return info;
}

bool is_deep(const GstVideoInfo &info) {
  return GST_VIDEO_FORMAT_INFO_DEPTH(info.finfo, 0) > 8;
}

void convert_with_gst(const GstVideoFrame &src, GstVideoFrame &dst, const GstVideoRectangle &crop,
                      ScaleMethod method);

// A frame of `content`: written as it is, or, for a deep source, into the
// 8-bit format of the same chroma layout and from there into its own by
// GstVideoConverter (each sample as its 8-bit level, as wide as it gets).
std::unique_ptr<Frame> source_frame(const GstVideoInfo &info, Content content, uint32_t seed) {
  auto frame = std::make_unique<Frame>(info);
  if (!is_deep(info)) {
    fill_content(*frame, content, seed);
    return frame;
  }
  const guint ws = GST_VIDEO_FORMAT_INFO_W_SUB(info.finfo, 1);
  const guint hs = GST_VIDEO_FORMAT_INFO_H_SUB(info.finfo, 1);
  const GstVideoFormat eight = ws == 0   ? GST_VIDEO_FORMAT_Y444
                               : hs == 0 ? GST_VIDEO_FORMAT_Y42B
                                         : GST_VIDEO_FORMAT_I420;
  GstVideoInfo eight_info = video_info(eight, guint(info.width), guint(info.height));
  eight_info.colorimetry = info.colorimetry;
  Frame bytes(eight_info);
  fill_content(bytes, content, seed);
  convert_with_gst(*bytes.get(), *frame->get(), {0, 0, info.width, info.height},
                   ScaleMethod::Nearest);
  return frame;
}

// ---------------------------------------------------------------------------
// The reference: GstVideoConverter scales and colour-converts the crop into
// an unturned image of the content's size; turning it, placing it and the
// borders are done here by hand.

// R, G, B, A on the 8-bit scale, unrounded.
using Rgba = std::array<double, 4>;

struct Image {
  gint w = 0, h = 0;
  std::vector<Rgba> px;
  Image(gint width, gint height) : w(width), h(height), px(gsize(width) * height) {}
  Rgba &at(gint x, gint y) { return px[gsize(y) * w + x]; }
  const Rgba &at(gint x, gint y) const { return px[gsize(y) * w + x]; }
};

void convert_with_gst(const GstVideoFrame &src, GstVideoFrame &dst, const GstVideoRectangle &crop,
                      ScaleMethod method) {
  // GstVideoConverter's own choice of taps: its bilinear upscale maps corner
  // to corner, its downscale widens the kernel; on smooth frames both stay
  // within a level or two of a plain bilinear sample. Quantization 2 with
  // no dithering changes nothing in the generic path but keeps it off the
  // fast paths, which replicate chroma and ignore the range.
  GstStructure *options = gst_structure_new(
      "options", GST_VIDEO_CONVERTER_OPT_SRC_X, G_TYPE_INT, crop.x, GST_VIDEO_CONVERTER_OPT_SRC_Y,
      G_TYPE_INT, crop.y, GST_VIDEO_CONVERTER_OPT_SRC_WIDTH, G_TYPE_INT, crop.w,
      GST_VIDEO_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, crop.h,
      GST_VIDEO_CONVERTER_OPT_RESAMPLER_METHOD, GST_TYPE_VIDEO_RESAMPLER_METHOD,
      method == ScaleMethod::Nearest ? GST_VIDEO_RESAMPLER_METHOD_NEAREST
                                     : GST_VIDEO_RESAMPLER_METHOD_LINEAR,
      GST_VIDEO_CONVERTER_OPT_DITHER_METHOD, GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
      GST_VIDEO_CONVERTER_OPT_DITHER_QUANTIZATION, G_TYPE_UINT, 2u, nullptr);
  GstVideoConverter *converter = gst_video_converter_new(
      const_cast<GstVideoInfo *>(&src.info), const_cast<GstVideoInfo *>(&dst.info), options);
  fail_unless(converter != nullptr);
  gst_video_converter_frame(converter, &src, &dst);
  gst_video_converter_free(converter);
}

bool source_is_yuv(const GstVideoInfo &in) {
  return !GST_VIDEO_INFO_IS_RGB(&in);  // YUV formats and GRAY8
}

// The luma of GRAY8 output, GRAY8's colorimetry (1:4:0:0): full-range
// BT.601, whatever the source's matrix.
double gray_luma(double r, double g, double b) {
  return 0.299 * r + 0.587 * g + 0.114 * b;
}

// 16-bit component c of pixel (x, y) of `frame` as 0..255.
double level16(const GstVideoFrame *frame, guint c, gint x, gint y) {
  const auto *row = static_cast<const guint8 *>(GST_VIDEO_FRAME_COMP_DATA(frame, c)) +
                    y * GST_VIDEO_FRAME_COMP_STRIDE(frame, c);
  return reinterpret_cast<const guint16 *>(row + x * GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c))[0] /
         257.0;
}

// Colour first, into 16-bit ARGB at the source's size, then the geometry on
// that. GstVideoConverter's 8-bit path converts Y'CbCr with coefficients a
// few levels low (NV12 120,140,110 gives G 127 for 131.0; its 16-bit path
// is within a level and a half), and while it scales vertically it stops
// interpolating 4:2:0 chroma between rows on some output lines.
std::unique_ptr<Frame> colour_then_scale(const Frame &src, GstVideoFormat format16,
                                         const GstVideoRectangle &crop, ScaleMethod method, gint w,
                                         gint h) {
  const GstVideoInfo &in = src.info();
  Frame full(video_info(format16, GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in)));
  convert_with_gst(*src.get(), *full.get(),
                   {0, 0, GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in)}, method);
  auto scaled = std::make_unique<Frame>(video_info(format16, guint(w), guint(h)));
  convert_with_gst(*full.get(), *scaled->get(), crop, method);
  return scaled;
}

Image rgba_with_gst(const Frame &src, const GstVideoRectangle &crop, ScaleMethod method, gint w,
                    gint h) {
  auto wide = colour_then_scale(src, GST_VIDEO_FORMAT_ARGB64, crop, method, w, h);
  Image image(w, h);
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x)
      for (guint c = 0; c < 4; ++c)
        image.at(x, y)[c] = level16(wide->get(), c, x, y);
  return image;
}

// GRAY8 from a YUV source of another matrix than BT.601 is the BT.601 luma
// of its R'G'B', which GstVideoConverter composes into one matrix (no
// clamping between): the same through GRAY16 (GRAY8's colorimetry), whose
// 16-bit path stays within a level where the 8-bit one runs a few low.
Image gray16_with_gst(const Frame &src, const GstVideoRectangle &crop, ScaleMethod method, gint w,
                      gint h) {
  auto scaled = colour_then_scale(src, GST_VIDEO_FORMAT_GRAY16_LE, crop, method, w, h);
  Image image(w, h);
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x) {
      const double l = level16(scaled->get(), 0, x, y);
      image.at(x, y) = {l, l, l, 255};
    }
  return image;
}

// Y' of pixel (x, y) as stored, on the 8-bit scale (a deep sample's
// code over 2^(depth - 8)).
double stored_luma(const Frame &src, gint x, gint y) {
  const GstVideoFormatInfo *finfo = src.info().finfo;
  if (!is_deep(src.info()))
    return src.at(0, x, y);
  const guint16 word = reinterpret_cast<const guint16 *>(&const_cast<Frame &>(src).at(0, x, y))[0];
  const guint code = guint(word) >> GST_VIDEO_FORMAT_INFO_SHIFT(finfo, 0);
  return code / double(1u << (GST_VIDEO_FORMAT_INFO_DEPTH(finfo, 0) - 8));
}

// GstVideoConverter writes a BT.601 source's Y unchanged into GRAY8
// whatever the ranges say, and so do both backends: the reference scales
// the luma plane as GRAY8.
Image luma_with_gst(const Frame &src, const GstVideoRectangle &crop, ScaleMethod method, gint w,
                    gint h) {
  const GstVideoInfo &in = src.info();
  Frame luma(
      video_info(GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_INFO_WIDTH(&in), GST_VIDEO_INFO_HEIGHT(&in)));
  for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&in); ++y)
    for (gint x = 0; x < GST_VIDEO_INFO_WIDTH(&in); ++x)
      luma.at(0, x, y) = guint8(std::min(std::lround(stored_luma(src, x, y)), 255L));
  Frame scaled(video_info(GST_VIDEO_FORMAT_GRAY8, guint(w), guint(h)));
  convert_with_gst(*luma.get(), *scaled.get(), crop, method);
  Image image(w, h);
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x) {
      const double l = scaled.at(0, x, y);
      image.at(x, y) = {l, l, l, 255};
    }
  return image;
}

Image reference_content(const Frame &src, const GstVideoInfo &out, const ConvertParams &params,
                        gint w, gint h) {
  const bool gray = GST_VIDEO_INFO_FORMAT(&out) == GST_VIDEO_FORMAT_GRAY8;
  if (gray && source_is_yuv(src.info()))
    return params.matrix == GST_VIDEO_COLOR_MATRIX_BT601 || GST_VIDEO_INFO_IS_GRAY(&src.info())
               ? luma_with_gst(src, params.crop, params.method, w, h)
               : gray16_with_gst(src, params.crop, params.method, w, h);
  Image image = rgba_with_gst(src, params.crop, params.method, w, h);
  if (gray) {
    for (Rgba &p : image.px) {
      const double l = gray_luma(p[0], p[1], p[2]);
      p = {l, l, l, p[3]};
    }
  }
  return image;
}

// The fill colour per output component: R, G, B, A, or for GRAY8 the luma.
std::array<guint8, 4> expected_fill(const GstVideoInfo &out, const ConvertParams &params) {
  const auto &f = params.fill;
  if (GST_VIDEO_INFO_FORMAT(&out) != GST_VIDEO_FORMAT_GRAY8)
    return f;
  const auto luma = guint8(std::lround(gray_luma(f[0], f[1], f[2])));
  return {luma, luma, luma, f[3]};
}

// The exact box reference (box_reference.hpp) of the crop at w x h.
Image box_content(const Frame &src, const ConvertParams &params, gint w, gint h) {
  const ef::test::BoxImage box = ef::test::box_reference(*src.get(), params.crop, w, h);
  Image image(w, h);
  for (gint y = 0; y < h; ++y)
    for (gint x = 0; x < w; ++x)
      image.at(x, y) = box.at(x, y);
  return image;
}

// What the content is held to: GstVideoConverter's scale, or the exact box
// (RGB family outputs only).
enum class Reference { Gst, Box };

std::unique_ptr<Frame> reference(const Frame &src, const GstVideoInfo &out,
                                 const ConvertParams &params, Reference kind = Reference::Gst) {
  const GstVideoInfo &in = src.info();
  const GstVideoRectangle &c = params.content;
  const bool swap = ef::gst::direction_swaps_axes(params.direction);
  const gint w = swap ? c.h : c.w, h = swap ? c.w : c.h;
  Image content = kind == Reference::Box ? box_content(src, params, w, h)
                                         : reference_content(src, out, params, w, h);
  auto result = std::make_unique<Frame>(out);
  const auto fill = expected_fill(out, params);
  // Sources without alpha come out opaque (GstVideoConverter would copy
  // RGBx's padding byte into alpha).
  const bool opaque = !GST_VIDEO_INFO_HAS_ALPHA(&in);
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS(&out); ++comp)
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&out); ++y)
      for (gint x = 0; x < GST_VIDEO_INFO_WIDTH(&out); ++x) {
        const bool inside = x >= c.x && y >= c.y && x < c.x + c.w && y < c.y + c.h;
        guint8 value = fill[comp];
        if (inside && comp == 3 && opaque) {
          value = 255;
        } else if (inside) {
          gint ux, uy;
          ef::test::unturn(params.direction, x - c.x, y - c.y, c.w, c.h, ux, uy);
          value = guint8(std::clamp(std::lround(content.at(ux, uy)[comp]), 0L, 255L));
        }
        result->at(comp, x, y) = value;
      }
  return result;
}

// ---------------------------------------------------------------------------
// Comparison

struct Comparison {
  double psnr = 0;  // over the content's component bytes
  double mae = 0;   // their mean absolute difference
  int max_diff = 0;
  std::string border;  // the first border byte that is not the fill colour
};

Comparison compare(const Frame &ours, const Frame &ref, const GstVideoRectangle &c) {
  Comparison result;
  double squared = 0;
  gsize count = 0;
  const GstVideoInfo &info = ref.info();
  for (guint comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS(&info); ++comp)
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&info); ++y)
      for (gint x = 0; x < GST_VIDEO_INFO_WIDTH(&info); ++x) {
        const int got = ours.at(comp, x, y), want = ref.at(comp, x, y);
        const bool inside = x >= c.x && y >= c.y && x < c.x + c.w && y < c.y + c.h;
        if (!inside) {
          if (got != want && result.border.empty())
            result.border = "component " + std::to_string(comp) + " at " + std::to_string(x) + "," +
                            std::to_string(y) + ": got " + std::to_string(got) + ", fill is " +
                            std::to_string(want);
          continue;
        }
        squared += double(got - want) * (got - want);
        result.mae += std::abs(got - want);
        ++count;
        result.max_diff = std::max(result.max_diff, std::abs(got - want));
      }
  const double mse = count ? squared / double(count) : 0;
  result.mae = count ? result.mae / double(count) : 0;
  result.psnr = mse == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 / mse);
  return result;
}

// ---------------------------------------------------------------------------
// One conversion through the GL backend

struct Case {
  GstVideoFormat in_format;
  guint in_w, in_h;
  GstVideoFormat out_format;
  guint out_w, out_h;
  GstVideoRectangle crop{};  // 0x0: the whole frame
  bool letterbox = false;
  GstVideoOrientationMethod direction = GST_VIDEO_ORIENTATION_IDENTITY;
  ScaleMethod method = ScaleMethod::Bilinear;
  const char *colorimetry = nullptr;  // the input's, else its format's default
  Content content = Content::Smooth;

  std::string name() const {
    return format_name(in_format) + " " + std::to_string(in_w) + "x" + std::to_string(in_h) +
           " -> " + format_name(out_format) + " " + std::to_string(out_w) + "x" +
           std::to_string(out_h) + (letterbox ? " letterbox" : "") + " direction " +
           std::to_string(int(direction)) +
           (method == ScaleMethod::Nearest ? " nearest" : " bilinear") +
           (colorimetry ? std::string(" ") + colorimetry : "");
  }
};

struct Outcome {
  Comparison comparison;
  std::string padding;  // the first padding byte of the target the pass wrote
};

ConvertParams plan(const Case &k, const GstVideoInfo &in) {
  auto planned =
      ef::gst::plan_conversion(k.in_w, k.in_h, k.crop, k.out_w, k.out_h, k.letterbox, k.direction);
  fail_unless(planned.ok(), "%s: %s", k.name().c_str(),
              planned.ok() ? "" : planned.error().message.c_str());
  ConvertParams params = *planned;
  params.method = k.method;
  params.fill = {30, 200, 90, 160};
  params.matrix = in.colorimetry.matrix;
  params.range = in.colorimetry.range;
  return params;
}

// The byte target for `out`: its own strides and plane offsets, the rows
// all its planes span, in the texels the backend takes for its stride
// unless `texel_bytes` says.
ByteTarget byte_target(const GstVideoInfo &out, guint texture, guint texel_bytes = 0) {
  ByteTarget target;
  target.texture = texture;
  target.stride = guint(GST_VIDEO_INFO_PLANE_STRIDE(&out, 0));
  target.rows = guint(out.size / target.stride);
  target.texel_bytes = texel_bytes ? texel_bytes : ByteTarget::texel_bytes_for(target.stride);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&out); ++p)
    target.offset[p] = GST_VIDEO_INFO_PLANE_OFFSET(&out, p);
  return target;
}

// The first byte outside every plane's visible rows and columns that no
// longer holds the sentinel.
std::string check_padding(const std::vector<guint8> &bytes, const GstVideoInfo &out) {
  std::vector<bool> visible(bytes.size(), false);
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&out); ++p) {
    gint comps[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component(out.finfo, p, comps);
    const gsize row_bytes =
        gsize(GST_VIDEO_INFO_WIDTH(&out)) * GST_VIDEO_INFO_COMP_PSTRIDE(&out, comps[0]);
    for (gint y = 0; y < GST_VIDEO_INFO_HEIGHT(&out); ++y)
      for (gsize b = 0; b < row_bytes; ++b)
        visible[GST_VIDEO_INFO_PLANE_OFFSET(&out, p) + y * GST_VIDEO_INFO_PLANE_STRIDE(&out, p) +
                b] = true;
  }
  for (gsize i = 0; i < bytes.size(); ++i)
    if (!visible[i] && bytes[i] != TestTexture::kSentinel)
      return "byte " + std::to_string(i) + " outside the visible rows was written";
  return "";
}

std::unique_ptr<GlConverter> make_converter(const GlContext &gl, const GstVideoInfo &in,
                                            const GstVideoInfo &out,
                                            PassStage stage = test_stage()) {
  std::unique_ptr<GlConverter> converter;
  gl.run([&] {
    auto made = GlConverter::create(gl.context.get(), in, out, stage);
    fail_unless(made.ok(), "create %s -> %s: %s", GST_VIDEO_INFO_NAME(&in),
                GST_VIDEO_INFO_NAME(&out), made.ok() ? "" : made.error().message.c_str());
    converter = std::move(*made);
  });
  fail_unless(converter->stage() == stage, "%s -> %s: asked for the compute stage, got fragments",
              GST_VIDEO_INFO_NAME(&in), GST_VIDEO_INFO_NAME(&out));
  return converter;
}

// Renders `source` as `out` through render_bytes and returns the bytes.
std::unique_ptr<Frame> render(const GlContext &gl, GlConverter &converter, const Frame &source,
                              const GstVideoInfo &out, const ConvertParams &params,
                              std::string *padding = nullptr, guint texel_bytes = 0) {
  GlFrame uploaded(gl, *source.get());
  ByteTarget target = byte_target(out, 0, texel_bytes);
  TestTexture texture(gl, target.width(), target.rows, target.texel_bytes == 4);
  target.texture = texture.texture();
  std::vector<guint8> bytes;
  const guint64 dispatched = converter.dispatches();
  gl.run([&] {
    auto done = converter.render_bytes(uploaded.textures(), target, params);
    fail_unless(done.ok(), "render_bytes: %s", done.ok() ? "" : done.error().message.c_str());
    bytes = texture.read();
  });
  // Rows of two whole RGBA8 texels or more are computed where the stage is
  // Compute: the suite then tests the compute shader, not its fallback.
  const gint row_bytes = params.content.w * GST_VIDEO_INFO_COMP_PSTRIDE(&out, 0);
  if (converter.stage() == PassStage::Compute && target.texel_bytes == 4 && row_bytes >= 12)
    fail_unless(converter.dispatches() > dispatched, "the compute stage dispatched nothing");
  if (padding)
    *padding = check_padding(bytes, out);
  auto frame = std::make_unique<Frame>(out);
  std::copy_n(bytes.begin(), std::min(bytes.size(), frame->size()), frame->bytes());
  return frame;
}

Outcome run_case(const GlContext &gl, const Case &k) {
  const GstVideoInfo in = video_info(k.in_format, k.in_w, k.in_h, k.colorimetry);
  const GstVideoInfo out = video_info(k.out_format, k.out_w, k.out_h);
  const ConvertParams params = plan(k, in);
  auto source = source_frame(in, k.content, 7);
  auto converter = make_converter(gl, in, out);
  Outcome outcome;
  auto ours = render(gl, *converter, *source, out, params, &outcome.padding);
  outcome.comparison = compare(*ours, *reference(*source, out, params), params.content);
  return outcome;
}

// Runs a case and checks it: the borders exactly the fill colour, nothing
// written outside the planes, and the content within `min_psnr` (or equal
// to the last bit where exact).
Comparison check_case(const GlContext &gl, const Case &k, double min_psnr, bool exact) {
  Outcome o = run_case(gl, k);
  const Comparison &c = o.comparison;
  fail_unless(c.border.empty(), "%s: border %s", k.name().c_str(), c.border.c_str());
  fail_unless(o.padding.empty(), "%s: %s", k.name().c_str(), o.padding.c_str());
  if (exact)
    fail_unless(c.max_diff == 0, "%s: not bit-exact: max difference %d (PSNR %.2f dB)",
                k.name().c_str(), c.max_diff, c.psnr);
  fail_unless(c.psnr >= min_psnr, "%s: PSNR %.2f dB < %.1f (max difference %d)", k.name().c_str(),
              c.psnr, min_psnr, c.max_diff);
  return c;
}

struct PsnrRange {
  double low = 1e9, high = 0;
  void add(double psnr) {
    low = std::min(low, psnr);
    high = std::max(high, psnr);
  }
  void print(const char *what) const { std::printf("%s: PSNR %.2f .. %.2f dB\n", what, low, high); }
};

// A deep source on a context without 16-bit textures: refused by name,
// never converted with 8-bit textures. Says so, once a test.
void expect_deep_refused(const GlContext &gl, GstVideoFormat in, bool &said) {
  GstVideoInfo from, to;
  gst_video_info_set_format(&from, in, 16, 16);
  gst_video_info_set_format(&to, GST_VIDEO_FORMAT_RGB, 8, 8);
  gl.run([&] {
    auto made = GlConverter::create(gl.context.get(), from, to, test_stage());
    fail_unless(!made.ok() && made.error().message.find("no 16-bit textures") != std::string::npos,
                "%s on a context without R16: %s", gst_video_format_to_string(in),
                made.ok() ? "converted" : made.error().message.c_str());
  });
  if (!said)
    std::printf(
        "this GL context has no 16-bit textures: deep sources refused by name, as "
        "checked, and not converted here\n");
  said = true;
}

// ---------------------------------------------------------------------------
// Tests

// Every input x output pair: downscaled into a letterbox, upscaled
// unevenly, and unscaled with a crop; bit-exact where both are RGB.
START_TEST(test_every_pair) {
  GlContext gl;
  PsnrRange range;
  bool said = false;
  for (GstVideoFormat in : kInputs)
    for (GstVideoFormat out : kOutputs) {
      if (!gl.reads(in)) {
        expect_deep_refused(gl, in, said);
        continue;
      }
      const bool exact = is_rgb_family(in) && is_rgb_family(out);
      Case down{in, 96, 60, out, 64, 48, {2, 2, 84, 54}, true};
      Case up{in, 46, 30, out, 100, 70};
      Case same{in, 96, 60, out, 60, 40, {10, 6, 60, 40}};
      range.add(check_case(gl, down, 40.0, false).psnr);
      range.add(check_case(gl, up, 40.0, false).psnr);
      range.add(check_case(gl, same, 40.0, exact).psnr);
      same.content = Content::Noise;
      if (exact)
        check_case(gl, same, 40.0, true);
    }
  range.print("every pair");
}
END_TEST

// The eight directions, unscaled (bit-exact on RGB, pixel for pixel) and
// scaled into a letterbox from NV12.
START_TEST(test_directions) {
  GlContext gl;
  PsnrRange range;
  for (GstVideoOrientationMethod d : kDirections) {
    const bool swap = ef::gst::direction_swaps_axes(d);
    for (GstVideoFormat in : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGR}) {
      Case exact{
          in, 40, 30, GST_VIDEO_FORMAT_RGB, swap ? 24u : 36u, swap ? 36u : 24u, {3, 4, 36, 24}};
      exact.direction = d;
      exact.content = Content::Noise;
      check_case(gl, exact, 99.0, true);
    }
    Case scaled{GST_VIDEO_FORMAT_NV12, 64, 36, GST_VIDEO_FORMAT_RGBA, 50, 50, {}, true, d};
    range.add(check_case(gl, scaled, 40.0, false).psnr);
    Case planar{GST_VIDEO_FORMAT_I420, 50, 40, GST_VIDEO_FORMAT_BGRP, 33, 47, {}, true, d};
    range.add(check_case(gl, planar, 40.0, false).psnr);
  }
  range.print("directions");
}
END_TEST

// Nearest picks the very pixels GstVideoConverter's nearest picks: exact on
// noise, up and down, turned and flipped.
START_TEST(test_nearest) {
  GlContext gl;
  const Case cases[] = {
      {GST_VIDEO_FORMAT_RGBA, 37, 23, GST_VIDEO_FORMAT_RGB, 64, 48},
      {GST_VIDEO_FORMAT_RGB, 97, 61, GST_VIDEO_FORMAT_BGRA, 40, 30},
      {GST_VIDEO_FORMAT_BGRx, 64, 48, GST_VIDEO_FORMAT_RGBP, 21, 13, {5, 3, 43, 27}},
      {GST_VIDEO_FORMAT_RGB, 30, 20, GST_VIDEO_FORMAT_RGB, 60, 40},
      {GST_VIDEO_FORMAT_RGBA, 33, 47, GST_VIDEO_FORMAT_RGBA, 70, 70, {}, true},
  };
  for (Case k : cases) {
    k.method = ScaleMethod::Nearest;
    k.content = Content::Noise;
    check_case(gl, k, 99.0, true);
  }
  // Turned: the reference turns GstVideoConverter's unturned frame.
  for (GstVideoOrientationMethod d : kDirections) {
    Case k{GST_VIDEO_FORMAT_RGBA, 45, 31, GST_VIDEO_FORMAT_RGB, 70, 50, {}, true, d,
           ScaleMethod::Nearest};
    k.content = Content::Noise;
    check_case(gl, k, 99.0, true);
  }
  // YUV under nearest: luma picked, chroma still interpolated.
  PsnrRange range;
  for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_I420}) {
    Case k{in, 90, 50, GST_VIDEO_FORMAT_RGB, 64, 64, {}, true};
    k.method = ScaleMethod::Nearest;
    range.add(check_case(gl, k, 40.0, false).psnr);
  }
  range.print("nearest YUV");
}
END_TEST

// BT.601, BT.709 and BT.2020, limited and full range.
START_TEST(test_colorimetry) {
  GlContext gl;
  PsnrRange range;
  const char *colorimetries[] = {"bt601", "bt709", "bt2020", "1:4:0:0", "1:3:5:1", "1:6:0:0"};
  for (const char *colorimetry : colorimetries)
    for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
                              GST_VIDEO_FORMAT_UYVY})
      for (GstVideoFormat out : {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_GRAY8}) {
        Case k{in, 64, 48, out, 64, 48};
        k.colorimetry = colorimetry;
        range.add(check_case(gl, k, 40.0, false).psnr);
        k.out_w = 40, k.out_h = 40, k.letterbox = true;
        range.add(check_case(gl, k, 40.0, false).psnr);
      }
  range.print("colorimetry");
}
END_TEST

// Borders are the fill colour to the bit, in every output layout; the
// content rectangle is where plan_conversion put it.
START_TEST(test_letterbox_borders) {
  GlContext gl;
  for (GstVideoFormat out : kOutputs) {
    // Wide into square (bands above and below) and tall into wide (left and
    // right), with odd leftovers.
    check_case(gl, {GST_VIDEO_FORMAT_NV12, 64, 36, out, 41, 41, {}, true}, 40.0, false);
    check_case(gl, {GST_VIDEO_FORMAT_RGBA, 30, 50, out, 61, 20, {}, true}, 40.0, false);
  }
}
END_TEST

// Tiny and odd frames: 1x1 and 3x3 inputs, a 1921x1081 input, 1xN and Nx1
// outputs. YUY2 and UYVY take even widths: GstGL's RG8 texture of an odd
// width stops before the last V.
START_TEST(test_odd_sizes) {
  GlContext gl;
  PsnrRange range;
  bool said = false;
  for (GstVideoFormat in : kInputs) {
    if (!gl.reads(in)) {
      expect_deep_refused(gl, in, said);
      continue;
    }
    const guint w1 = GST_VIDEO_FORMAT_INFO_W_SUB(gst_video_format_get_info(in), 1) &&
                             GST_VIDEO_FORMAT_INFO_H_SUB(gst_video_format_get_info(in), 1) == 0
                         ? 2
                         : 1;
    const bool exact = is_rgb_family(in);
    range.add(check_case(gl, {in, w1, 1, GST_VIDEO_FORMAT_RGB, 5, 3}, 40.0, false).psnr);
    range.add(check_case(gl, {in, w1 * 3, 3, GST_VIDEO_FORMAT_RGBA, w1 * 3, 3}, 40.0, exact).psnr);
    range.add(check_case(gl, {in, w1 * 3, 3, GST_VIDEO_FORMAT_BGR, 7, 5}, 40.0, false).psnr);
    range.add(check_case(gl, {in, 2, 18, GST_VIDEO_FORMAT_RGBP, 1, 9}, 40.0, false).psnr);
    range.add(check_case(gl, {in, 18, 2, GST_VIDEO_FORMAT_BGRx, 9, 1}, 40.0, false).psnr);
    range.add(
        check_case(gl, {in, 18, 6, GST_VIDEO_FORMAT_GRAY8, 9, 1, {}, true}, 40.0, false).psnr);
  }
  for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_RGB}) {
    Case big{in, 1921, 1081, GST_VIDEO_FORMAT_RGB, 640, 640, {}, true};
    big.colorimetry = "bt709";
    range.add(check_case(gl, big, 40.0, false).psnr);
  }
  // An odd crop of a 4:2:0 frame.
  range.add(
      check_case(gl, {GST_VIDEO_FORMAT_NV12, 61, 41, GST_VIDEO_FORMAT_RGB, 31, 21, {7, 5, 31, 21}},
                 40.0, false)
          .psnr);
  range.print("odd sizes");
}
END_TEST

// Mean absolute error of the content's R, G, B bytes of `ours` against the
// unrounded box reference (clamped to bytes): a pixel half a level off
// counts a half, whichever way it rounds.
double box_error(const Frame &ours, const Frame &src, const ConvertParams &params) {
  const GstVideoRectangle &c = params.content;
  const bool swap = ef::gst::direction_swaps_axes(params.direction);
  const Image box = box_content(src, params, swap ? c.h : c.w, swap ? c.w : c.h);
  double sum = 0;
  for (gint y = 0; y < c.h; ++y)
    for (gint x = 0; x < c.w; ++x) {
      gint ux, uy;
      ef::test::unturn(params.direction, x, y, c.w, c.h, ux, uy);
      for (guint comp = 0; comp < 3; ++comp)
        sum += std::fabs(ours.at(comp, c.x + x, c.y + y) -
                         std::clamp(box.at(ux, uy)[comp], 0.0, 255.0));
    }
  return sum / (3.0 * c.w * c.h);
}

// Reductions against the exact box reference (box_reference.hpp): each
// output pixel the mean of the source over its footprint, the texels its
// edges cut weighed by what it covers, chroma over the same footprint in
// its own samples. Whatever the reduction (a whole frame into one pixel),
// each axis alone, turned, cropped and letterboxed, from every source
// layout; a zone plate (luma beyond the output's Nyquist rate) and colour
// steps (edges in chroma).
START_TEST(test_box_reductions) {
  GlContext gl;
  // Rounding to bytes alone is a quarter of a level on average. Without
  // textureGather (GLSL 3.30, ES 3.00) the pass sums texels with the
  // sampler's bilinear filter, whose precision is the driver's: llvmpipe
  // rounds each step to 8 bits, half a level on a large footprint. Along an
  // axis that is not reduced (1:1 here), chroma is interpolated linearly
  // between its samples (as GstVideoConverter and the CPU backend upsample
  // it) where the reference holds each sample over its area: up to a level
  // at colour steps.
  const bool gathers = context_gathers(gl);
  const double kMaxMae = gathers ? 0.6 : 1.0, kMaxMaeOneAxis = 1.25;
  const GstVideoFormat rgb = GST_VIDEO_FORMAT_RGB;
  struct BoxCase {
    Case k;
    double bound;
  };
  std::vector<BoxCase> cases;
  for (GstVideoFormat in :
       {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
        GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_GRAY8}) {
    const BoxCase some[] = {
        {{in, 480, 360, rgb, 160, 120}, kMaxMae},
        {{in, 480, 360, rgb, 96, 72}, kMaxMae},
        {{in, 480, 360, rgb, 60, 45}, kMaxMae},
        {{in, 97, 61, rgb, 1, 1}, kMaxMae},
        {{in, 97, 61, rgb, 7, 3}, kMaxMae},
        {{in, 97, 61, rgb, 1, 61}, kMaxMaeOneAxis},
        {{in, 97, 61, rgb, 97, 1}, kMaxMaeOneAxis},
        {{in, 480, 360, GST_VIDEO_FORMAT_RGBP, 40, 53, {}, false, GST_VIDEO_ORIENTATION_90R},
         kMaxMae},
        {{in, 480, 360, rgb, 33, 17, {31, 17, 301, 203}}, kMaxMae},
        {{in, 481, 359, GST_VIDEO_FORMAT_BGRx, 64, 64, {}, true, GST_VIDEO_ORIENTATION_UL_LR},
         kMaxMae},
    };
    for (const BoxCase &c : some)
      for (Content content : {Content::ZonePlate, Content::ColourStep}) {
        cases.push_back(c);
        cases.back().k.content = content;
      }
  }
  double worst = 0;
  for (const auto &[k, bound] : cases) {
    const GstVideoInfo in = video_info(k.in_format, k.in_w, k.in_h);
    const GstVideoInfo out = video_info(k.out_format, k.out_w, k.out_h);
    const ConvertParams params = plan(k, in);
    Frame source(in);
    fill_content(source, k.content, 0);
    auto converter = make_converter(gl, in, out);
    auto ours = render(gl, *converter, source, out, params);
    const Comparison c =
        compare(*ours, *reference(source, out, params, Reference::Box), params.content);
    const char *what = k.content == Content::ZonePlate ? "zone plate" : "colour steps";
    fail_unless(c.border.empty(), "%s, %s: border %s", k.name().c_str(), what, c.border.c_str());
    const double mae = box_error(*ours, source, params);
    fail_unless(mae <= bound, "%s, %s: %.2f from the box reference (bound %.2f)", k.name().c_str(),
                what, mae, bound);
    if (bound == kMaxMae)
      worst = std::max(worst, mae);
  }
  std::printf("box reductions: mean absolute error at most %.2f (reduced on both axes; %s)\n",
              worst, gathers ? "gathered" : "bilinear fetches, no textureGather here");
}
END_TEST

// A case's source frame, plan and converter, for tests that compare two
// renders of it.
struct Setup {
  GstVideoInfo in, out;
  ConvertParams params;
  std::unique_ptr<Frame> source;
  std::unique_ptr<GlConverter> converter;
};

Setup set_up(const GlContext &gl, const Case &k, Content content, guint seed) {
  Setup s;
  s.in = video_info(k.in_format, k.in_w, k.in_h);
  s.out = video_info(k.out_format, k.out_w, k.out_h);
  s.params = plan(k, s.in);
  s.source = std::make_unique<Frame>(s.in);
  fill_content(*s.source, content, seed);
  s.converter = make_converter(gl, s.in, s.out);
  return s;
}

// render_pixels writes into RGBA8 texels exactly what render_bytes writes
// into bytes.
START_TEST(test_render_pixels) {
  GlContext gl;
  for (GstVideoFormat out : {GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
                             GST_VIDEO_FORMAT_BGRx}) {
    for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_BGRA}) {
      const Case k{in, 80, 45, out, 48, 48, {}, true, GST_VIDEO_ORIENTATION_90L};
      const Setup s = set_up(gl, k, Content::Smooth, 3);
      auto bytes = render(gl, *s.converter, *s.source, s.out, s.params);
      GlFrame uploaded(gl, *s.source->get());
      // Also into a mutable texture, as GstGL's are: GLES computes those
      // into a texture of the converter's and copies it over.
      for (const bool mutable_rgba : {false, true}) {
        TestTexture pixels(gl, k.out_w, k.out_h, true, mutable_rgba);
        std::vector<guint8> got;
        const guint64 dispatched = s.converter->dispatches();
        gl.run([&] {
          auto done = s.converter->render_pixels(uploaded.textures(), pixels.texture(), s.params);
          fail_unless(done.ok(), "render_pixels: %s",
                      done.ok() ? "" : done.error().message.c_str());
          got = pixels.read();
        });
        const bool same =
            bytes->size() == got.size() && std::equal(got.begin(), got.end(), bytes->bytes());
        gsize first = 0;
        while (first < got.size() && first < bytes->size() && got[first] == bytes->bytes()[first])
          ++first;
        fail_unless(same, "%s (%s texture): render_pixels differs from render_bytes at byte %zu",
                    k.name().c_str(), mutable_rgba ? "mutable" : "immutable", first);
        if (s.converter->stage() == PassStage::Compute)
          fail_unless(s.converter->dispatches() > dispatched, "%s: render_pixels computed nothing",
                      k.name().c_str());
      }
    }
  }
}
END_TEST

// R8 targets (one byte a texel, for strides that are no multiple of 4)
// hold exactly what RGBA8 targets hold, padding untouched, in every output
// layout, with content and borders starting inside texels.
START_TEST(test_r8_target) {
  GlContext gl;
  for (GstVideoFormat out : kOutputs)
    for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB}) {
      const Case cases[] = {{in, 30, 50, out, 61, 21, {}, true},
                            {in, 64, 36, out, 41, 41, {}, true, GST_VIDEO_ORIENTATION_90R}};
      for (const Case &k : cases) {
        const Setup s = set_up(gl, k, Content::Noise, 9);
        std::string quad_padding, r8_padding;
        auto quad = render(gl, *s.converter, *s.source, s.out, s.params, &quad_padding, 4);
        auto r8 = render(gl, *s.converter, *s.source, s.out, s.params, &r8_padding, 1);
        fail_unless(quad_padding.empty() && r8_padding.empty(), "%s: %s%s", k.name().c_str(),
                    quad_padding.c_str(), r8_padding.c_str());
        fail_unless(std::equal(quad->bytes(), quad->bytes() + quad->size(), r8->bytes()),
                    "%s: R8 and RGBA8 targets differ", k.name().c_str());
      }
    }
}
END_TEST

// Renders planar `out` with each plane in a texture of its own (the one
// pass into three draw buffers) and returns the bytes as the planes would
// lie in one buffer of `out`'s layout.
std::unique_ptr<Frame> render_planes_apart(const GlContext &gl, GlConverter &converter,
                                           const Frame &source, const GstVideoInfo &out,
                                           const ConvertParams &params, guint texel_bytes) {
  GlFrame uploaded(gl, *source.get());
  ByteTarget target = byte_target(out, 0, texel_bytes);
  const guint height = GST_VIDEO_INFO_HEIGHT(&out);
  std::vector<std::unique_ptr<TestTexture>> planes;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&out); ++p) {
    planes.push_back(
        std::make_unique<TestTexture>(gl, target.width(), height, target.texel_bytes == 4));
    target.plane_textures[p] = planes.back()->texture();
  }
  // What the shared texture holds outside the planes: the sentinel.
  auto frame = std::make_unique<Frame>(out);
  std::fill_n(frame->bytes(), frame->size(), TestTexture::kSentinel);
  gl.run([&] {
    auto done = converter.render_bytes(uploaded.textures(), target, params);
    fail_unless(done.ok(), "render_bytes: %s", done.ok() ? "" : done.error().message.c_str());
    for (guint p = 0; p < planes.size(); ++p) {
      const std::vector<guint8> bytes = planes[p]->read();
      std::copy(bytes.begin(), bytes.end(), frame->bytes() + target.offset[p]);
    }
  });
  return frame;
}

// Planar outputs into a texture a plane (one draw, three draw buffers)
// hold exactly what per-plane passes write into one texture: content,
// borders and padding, in RGBA8 and R8 texels.
START_TEST(test_planes_in_one_pass) {
  GlContext gl;
  for (GstVideoFormat out : {GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP})
    for (GstVideoFormat in : {GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YUY2,
                              GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_GRAY8}) {
      Case nearest{in, 64, 36, out, 41, 41, {}, true};
      nearest.method = ScaleMethod::Nearest;
      const Case cases[] = {{in, 30, 50, out, 61, 21, {}, true},
                            {in, 64, 36, out, 40, 40, {}, true, GST_VIDEO_ORIENTATION_90R},
                            {in, 64, 48, out, 64, 48, {3, 5, 40, 30}},
                            nearest};
      for (const Case &k : cases)
        for (guint texel_bytes : {4u, 1u}) {
          const Setup s = set_up(gl, k, Content::Noise, 11);
          auto shared = render(gl, *s.converter, *s.source, s.out, s.params, nullptr, texel_bytes);
          auto apart =
              render_planes_apart(gl, *s.converter, *s.source, s.out, s.params, texel_bytes);
          fail_unless(std::equal(shared->bytes(), shared->bytes() + shared->size(), apart->bytes()),
                      "%s (%u-byte texels): one pass differs from per-plane passes",
                      k.name().c_str(), texel_bytes);
        }
    }
}
END_TEST

// The byte target can be an EGLImage of a memfd: the pass writes straight
// into the memory that goes downstream.
START_TEST(test_memfd_target) {
  std::string why;
  if (!ef::test::egl_dmabuf_import_available(why)) {
    std::printf("test_memfd_target skipped: %s\n", why.c_str());
    return;
  }
  GlContext gl;
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 320, 180, "bt709");
  const GstVideoInfo out = video_info(GST_VIDEO_FORMAT_RGB, 160, 160);
  const ConvertParams params =
      plan({GST_VIDEO_FORMAT_NV12, 320, 180, GST_VIDEO_FORMAT_RGB, 160, 160, {}, true}, in);
  Frame source(in);
  fill_content(source, Content::Smooth, 5);
  auto converter = make_converter(gl, in, out);
  auto expected = render(gl, *converter, source, out, params);

  // The memfd as the backend imports it: RGBA of stride / 4 pixels (AB24,
  // bytes in memory order), rows high.
  ByteTarget target = byte_target(out, 0);
  fail_unless(target.texel_bytes == 4);
  const GstVideoInfo image_info = video_info(target.video_format(), target.width(), target.rows);
  fail_unless(guint(GST_VIDEO_INFO_PLANE_STRIDE(&image_info, 0)) == target.stride);
  const int fd = ef::test::make_memfd("ef-gl-target", image_info.size);
  fail_unless(fd >= 0);
  GlFrame uploaded(gl, *source.get());
  const guint64 dispatched = converter->dispatches();
  gl.run([&] {
    const GstGLFuncs *f = gl.gl();
    GstEGLImage *image = gst_egl_image_from_dmabuf(gl.context.get(), fd, &image_info, 0, 0);
    fail_unless(image != nullptr, "EGL refused the memfd as an RGBA image");
    f->GenTextures(1, &target.texture);
    f->BindTexture(GL_TEXTURE_2D, target.texture);
    f->EGLImageTargetTexture2D(GL_TEXTURE_2D, gst_egl_image_get_image(image));
    f->BindTexture(GL_TEXTURE_2D, 0);
    target.imported = true;
    auto done = converter->render_bytes(uploaded.textures(), target, params);
    fail_unless(done.ok(), "render_bytes into the memfd: %s",
                done.ok() ? "" : done.error().message.c_str());
    f->Finish();
    f->DeleteTextures(1, &target.texture);
    gst_egl_image_unref(image);
  });
  auto *mapped =
      static_cast<guint8 *>(mmap(nullptr, image_info.size, PROT_READ, MAP_SHARED, fd, 0));
  fail_unless(mapped != MAP_FAILED);
  // 160 RGB pixels are 480 bytes: rows have no padding, every byte counts.
  const bool same = std::equal(expected->bytes(), expected->bytes() + expected->size(), mapped);
  munmap(mapped, image_info.size);
  close(fd);
  fail_unless(same, "the memfd does not hold what the pass rendered");
  fail_unless(converter->dispatches() == dispatched, "image stores into an imported image");
}
END_TEST

// CPU time of all the process's threads (llvmpipe's included), which other
// processes on the machine inflate less than wall time.
double process_cpu_ms() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

// The benchmark's case: 1080p NV12 -> 640x640 RGB letterbox, per frame
// including glFinish. Printed for the record; the bound only catches a
// pass gone pathologically slow.
START_TEST(test_timing) {
  GlContext gl;
  const Case k{GST_VIDEO_FORMAT_NV12, 1920, 1080, GST_VIDEO_FORMAT_RGB, 640, 640, {}, true};
  const GstVideoInfo in = video_info(k.in_format, k.in_w, k.in_h, "bt709");
  const GstVideoInfo out = video_info(k.out_format, k.out_w, k.out_h);
  Frame source(in);
  fill_content(source, Content::Smooth, 1);
  auto converter = make_converter(gl, in, out);
  GlFrame uploaded(gl, *source.get());
  ByteTarget target = byte_target(out, 0);
  TestTexture texture(gl, target.width(), target.rows, target.texel_bytes == 4);
  target.texture = texture.texture();
  // Black borders (the default fill) are cleared; coloured ones drawn.
  struct Variant {
    const char *name;
    ScaleMethod method;
    std::array<guint8, 4> fill;
  };
  const Variant variants[] = {
      {"bilinear", ScaleMethod::Bilinear, {0, 0, 0, 255}},
      {"nearest", ScaleMethod::Nearest, {0, 0, 0, 255}},
      {"bilinear, coloured borders", ScaleMethod::Bilinear, {30, 200, 90, 255}}};
  for (const Variant &v : variants) {
    Case timed = k;
    timed.method = v.method;
    ConvertParams params = plan(timed, in);
    params.fill = v.fill;
    // The best of several batches: other processes share the two cores.
    constexpr int kBatches = 8, kFrames = 10;
    double ms = 1e9, cpu_ms = 1e9;
    gl.run([&] {
      auto once = [&] {
        auto done = converter->render_bytes(uploaded.textures(), target, params);
        fail_unless(done.ok());
        gl.gl()->Finish();
      };
      once();  // first draw: shader variant compile, JIT
      for (int batch = 0; batch < kBatches; ++batch) {
        const gint64 start = g_get_monotonic_time();
        const double cpu_start = process_cpu_ms();
        for (int i = 0; i < kFrames; ++i)
          once();
        cpu_ms = std::min(cpu_ms, (process_cpu_ms() - cpu_start) / kFrames);
        ms = std::min(ms, double(g_get_monotonic_time() - start) / 1000.0 / kFrames);
      }
    });
    std::printf("1080p NV12 -> 640x640 RGB letterbox (%s): %.2f ms/frame, %.2f ms CPU\n", v.name,
                ms, cpu_ms);
    fail_unless(ms < 200.0, "%.1f ms a frame", ms);
  }
  // Tiny outputs: an output pixel's box costs a quarter of its footprint
  // in gathers, one invocation each (a whole frame into one pixel: one
  // invocation's loop).
  for (const auto &[w, h] : {std::pair{1u, 1u}, std::pair{7u, 5u}, std::pair{64u, 64u}}) {
    const Case tiny{GST_VIDEO_FORMAT_NV12, 1920, 1080, GST_VIDEO_FORMAT_RGB, w, h};
    const GstVideoInfo out = video_info(tiny.out_format, w, h);
    const ConvertParams params = plan(tiny, in);
    auto small = make_converter(gl, in, out);
    ByteTarget small_target = byte_target(out, 0);
    TestTexture small_texture(gl, small_target.width(), small_target.rows,
                              small_target.texel_bytes == 4);
    small_target.texture = small_texture.texture();
    double ms = 1e9;
    gl.run([&] {
      auto once = [&] {
        fail_unless(small->render_bytes(uploaded.textures(), small_target, params).ok());
        gl.gl()->Finish();
      };
      once();
      for (int batch = 0; batch < 3; ++batch) {
        const gint64 start = g_get_monotonic_time();
        once();
        ms = std::min(ms, double(g_get_monotonic_time() - start) / 1000.0);
      }
    });
    std::printf("1080p NV12 -> %ux%u RGB: %.2f ms/frame\n", w, h, ms);
    fail_unless(ms < 2000.0, "%.1f ms a frame", ms);
  }
}
END_TEST

// Refusals: formats it does not handle, rectangles outside the frames,
// targets too small for the output.
START_TEST(test_refusals) {
  GlContext gl;
  const GstVideoInfo nv12 = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  const GstVideoInfo rgb = video_info(GST_VIDEO_FORMAT_RGB, 32, 32);
  gl.run([&] {
    auto bad_in =
        GlConverter::create(gl.context.get(), video_info(GST_VIDEO_FORMAT_v210, 64, 48), rgb);
    fail_unless(!bad_in.ok() && bad_in.error().code == EINVAL);
    auto bad_out = GlConverter::create(gl.context.get(), nv12, nv12);
    fail_unless(!bad_out.ok() && bad_out.error().code == EINVAL);
  });
  auto converter = make_converter(gl, nv12, rgb);
  Frame source(nv12);
  GlFrame uploaded(gl, *source.get());
  TestTexture texture(gl, 96, 32, false);
  ConvertParams params = plan({GST_VIDEO_FORMAT_NV12, 64, 48, GST_VIDEO_FORMAT_RGB, 32, 32}, nv12);
  gl.run([&] {
    ByteTarget target{texture.texture(), 96, 32, {}};
    fail_unless(converter->render_bytes(uploaded.textures(), target, params).ok());
    ConvertParams crop_outside = params;
    crop_outside.crop.x = 40;
    auto r = converter->render_bytes(uploaded.textures(), target, crop_outside);
    fail_unless(!r.ok() && r.error().code == EINVAL);
    ByteTarget narrow{texture.texture(), 90, 32, {}};
    r = converter->render_bytes(uploaded.textures(), narrow, params);
    fail_unless(!r.ok() && r.error().code == EINVAL);
    ByteTarget short_rows{texture.texture(), 96, 31, {}};
    r = converter->render_bytes(uploaded.textures(), short_rows, params);
    fail_unless(!r.ok() && r.error().code == EINVAL);
    r = converter->render_pixels(uploaded.textures(), texture.texture(), params);
    fail_unless(!r.ok() && r.error().code == EINVAL, "render_pixels into RGB");
    std::array<guint, GST_VIDEO_MAX_PLANES> missing = uploaded.textures();
    missing[1] = 0;
    r = converter->render_bytes(missing, target, params);
    fail_unless(!r.ok() && r.error().code == EINVAL);
  });
}
END_TEST

// The compute stage writes the bytes the fragment stage writes, padding
// and the partial texels at box edges included (drawn as fragments). Into
// a mutable texture GLES cannot store images: fragments then, the same
// bytes.
// A 10-bit ramp at 1:1 keeps its 10 bits to the last rounding: each byte
// is the exact value of its code rounded once, within half a level (a
// pass through 8 bits first would be up to 0.65 off), from R16 textures of
// the sample in the high bits (P010) and in the low bits (I420_10LE).
START_TEST(test_deep_precision) {
  GlContext gl;
  constexpr gint kCodes = 876, kRows = 2;  // limited-range luma 64..939
  for (GstVideoFormat format : {GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_I420_10LE}) {
    const Case k{format, kCodes, kRows, GST_VIDEO_FORMAT_RGB, kCodes, kRows};
    const GstVideoInfo in = video_info(format, kCodes, kRows, "bt709");
    const GstVideoInfo out = video_info(GST_VIDEO_FORMAT_RGB, kCodes, kRows);
    Frame source(in);
    // Plane by plane, every word: the luma's code is 64 + x, the chroma's
    // neutral (P010's chroma words alternate U, V; GStreamer's component
    // offset for its V is no use here, 1 byte).
    const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT(in.finfo, 0);
    for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&in); ++p) {
      auto *plane = static_cast<guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(source.get(), p));
      const gint words =
          GST_VIDEO_INFO_COMP_WIDTH(&in, p) * GST_VIDEO_INFO_COMP_PSTRIDE(&in, p) / 2;
      for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&in, p); ++y)
        for (gint x = 0; x < words; ++x)
          reinterpret_cast<guint16 *>(plane +
                                      y * GST_VIDEO_FRAME_PLANE_STRIDE(source.get(), p))[x] =
              guint16((p == 0 ? 64 + x : 512) << shift);
    }
    auto converter = make_converter(gl, in, out);
    auto ours = render(gl, *converter, source, out, plan(k, in));
    double worst = 0;
    for (gint y = 0; y < kRows; ++y)
      for (gint x = 0; x < kCodes; ++x)
        for (guint c = 0; c < 3; ++c)
          worst = std::max(worst, std::abs(ours->at(c, x, y) - x * 255.0 / 876));
    std::printf("%s ramp at 1:1: bytes within %.3f of the exact value\n",
                format_name(format).c_str(), worst);
    fail_unless(worst <= 0.51, "%s: a byte %.3f from the exact value", format_name(format).c_str(),
                worst);
  }
}
END_TEST

START_TEST(test_compute_matches_fragment) {
  GlContext gl;
  const bool gles = gst_gl_context_get_gl_api(gl.context.get()) & GST_GL_API_GLES2;
  struct Variant {
    Case k;
    std::array<guint8, 4> fill;
  };
  const std::array<guint8, 4> green{30, 200, 90, 255}, black{0, 0, 0, 255};
  Variant variants[] = {
      {{GST_VIDEO_FORMAT_NV12, 97, 61, GST_VIDEO_FORMAT_RGB, 64, 37, {}, true}, green},
      {{GST_VIDEO_FORMAT_I420, 200, 120, GST_VIDEO_FORMAT_RGBP, 48, 33, {}, true}, green},
      {{GST_VIDEO_FORMAT_YUY2, 63, 41, GST_VIDEO_FORMAT_BGRx, 50, 30, {3, 5, 51, 30}}, black},
      {{GST_VIDEO_FORMAT_RGBA, 120, 90, GST_VIDEO_FORMAT_GRAY8, 40, 29, {}, true}, green},
      {{GST_VIDEO_FORMAT_NV12, 400, 300, GST_VIDEO_FORMAT_RGB, 64, 48}, black},
      {{GST_VIDEO_FORMAT_RGB, 52, 40, GST_VIDEO_FORMAT_RGBA, 52, 40}, black},
      {{GST_VIDEO_FORMAT_NV12,
        96,
        64,
        GST_VIDEO_FORMAT_RGB,
        60,
        44,
        {},
        true,
        GST_VIDEO_ORIENTATION_90R},
       green},
  };
  variants[5].k.method = ScaleMethod::Nearest;
  variants[4].k.content = Content::ZonePlate;
  for (const Variant &v : variants) {
    const GstVideoInfo in = video_info(v.k.in_format, v.k.in_w, v.k.in_h);
    const GstVideoInfo out = video_info(v.k.out_format, v.k.out_w, v.k.out_h);
    ConvertParams params = plan(v.k, in);
    params.fill = v.fill;
    Frame source(in);
    fill_content(source, v.k.content == Content::Smooth ? Content::ColourStep : v.k.content, 3);
    GlFrame uploaded(gl, *source.get());
    auto drawn = make_converter(gl, in, out, PassStage::Fragment);
    auto computed = make_converter(gl, in, out, PassStage::Compute);
    auto bytes_of = [&](GlConverter &converter, bool mutable_rgba) {
      ByteTarget target = byte_target(out, 0);
      TestTexture texture(gl, target.width(), target.rows, target.texel_bytes == 4, mutable_rgba);
      target.texture = texture.texture();
      std::vector<guint8> bytes;
      gl.run([&] {
        auto done = converter.render_bytes(uploaded.textures(), target, params);
        fail_unless(done.ok(), "%s: %s", v.k.name().c_str(),
                    done.ok() ? "" : done.error().message.c_str());
        bytes = texture.read();
      });
      return bytes;
    };
    const std::vector<guint8> expected = bytes_of(*drawn, false);
    fail_unless(drawn->dispatches() == 0);
    for (const bool mutable_rgba : {false, true}) {
      const guint64 before = computed->dispatches();
      const std::vector<guint8> got = bytes_of(*computed, mutable_rgba);
      const bool stored = computed->dispatches() > before;
      fail_unless(stored == !(gles && mutable_rgba), "%s: %s texture: %s", v.k.name().c_str(),
                  mutable_rgba ? "mutable" : "immutable", stored ? "computed" : "not computed");
      fail_unless(got.size() == expected.size());
      for (gsize i = 0; i < got.size(); ++i)
        fail_unless(got[i] == expected[i], "%s (%s texture): byte %zu computed %u, drawn %u",
                    v.k.name().c_str(), mutable_rgba ? "mutable" : "immutable", i, got[i],
                    expected[i]);
    }
  }
}
END_TEST

// A tensor's dispatch stays within the work groups GL takes along x and y
// and covers every invocation: rows of groups longer where the rows would
// be too many (the largest float32 tensor asked for 65536 of 65535), and
// none where no dispatch holds them (refused at caps time).
START_TEST(test_tensor_dispatch_within_limit) {
  for (gint side : {1, 17, 640, 4097, 16383, 16384})
    for (guint channels : {1u, 3u})
      for (TensorType type : {TensorType::Float32, TensorType::Uint8}) {
        TensorSpec spec;
        spec.type = type;
        spec.channels = channels;
        spec.width = spec.height = side;
        for (const gl::GroupLimit limit :
             {gl::GroupLimit{}, gl::GroupLimit{65535, 1024}, gl::GroupLimit{100000, 100}}) {
          const gl::TensorWords w = gl::tensor_words(spec, limit);
          const guint64 covered =
              guint64(w.groups[0]) * gl::kTensorGroupWidth * w.groups[1] * gl::kTensorGroupHeight;
          if (w.groups[0] == 0) {
            // Only where more than the limit's groups are needed.
            fail_unless(
                guint64(w.invocations) >
                    guint64(limit.x) * limit.y * gl::kTensorGroupWidth * gl::kTensorGroupHeight / 2,
                "side %d: %u invocations refused under %u x %u", side, w.invocations, limit.x,
                limit.y);
            continue;
          }
          fail_unless(w.groups[0] <= limit.x && w.groups[1] <= limit.y,
                      "side %d: %u x %u groups, the limit %u x %u", side, w.groups[0], w.groups[1],
                      limit.x, limit.y);
          fail_unless(covered >= w.invocations, "side %d: %u x %u groups miss invocations", side,
                      w.groups[0], w.groups[1]);
        }
      }
  TensorSpec largest;
  largest.width = largest.height = 16384;
  fail_unless(gl::tensor_words(largest).groups[1] <= 65535);
  fail_unless_equals_int(gl::tensor_words(largest, {64, 65535}).groups[0], 0);
}
END_TEST

Suite *gl_converter_suite() {
  Suite *s = suite_create("gl_converter");
  TCase *tc = tcase_create("general");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_every_pair);
  tcase_add_test(tc, test_directions);
  tcase_add_test(tc, test_nearest);
  tcase_add_test(tc, test_colorimetry);
  tcase_add_test(tc, test_letterbox_borders);
  tcase_add_test(tc, test_odd_sizes);
  tcase_add_test(tc, test_render_pixels);
  tcase_add_test(tc, test_r8_target);
  tcase_add_test(tc, test_planes_in_one_pass);
  tcase_add_test(tc, test_memfd_target);
  tcase_add_test(tc, test_timing);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_tensor_dispatch_within_limit);
  tcase_add_test(tc, test_deep_precision);
  suite_add_tcase(s, tc);
  TCase *strong = tcase_create("strong");
  tcase_set_timeout(strong, 300);
  tcase_add_test(strong, test_box_reductions);
  suite_add_tcase(s, strong);
  if (test_stage() == PassStage::Compute) {
    TCase *compute = tcase_create("compute");
    tcase_set_timeout(compute, 300);
    tcase_add_test(compute, test_compute_matches_fragment);
    suite_add_tcase(s, compute);
  }
  return s;
}

}  // namespace

int main(int argc, char **argv) {
  return ef::test::run_gl_suite(argc, argv, gl_converter_suite, ef::test::Needs::Gl);
}
