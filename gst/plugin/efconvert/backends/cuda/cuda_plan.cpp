// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "efconvert/plan/pass_plan.hpp"

namespace ef::gst::cuda {

bool reads(GstVideoFormat format) {
  return format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_I420;
}

bool writes(GstVideoFormat out) {
  return plan::output_layout(out).has_value();
}

bool writes(TensorType) {
  return true;
}

namespace {

// The tensor's channels as an image of that order: RGB, BGR or GRAY8.
GstVideoFormat channel_format(const TensorSpec &t, const ConvertParams &params) {
  return t.channels == 1   ? GST_VIDEO_FORMAT_GRAY8
         : params.norm.bgr ? GST_VIDEO_FORMAT_BGR
                           : GST_VIDEO_FORMAT_RGB;
}

ValueKind value_kind(TensorType type) {
  switch (type) {
    case TensorType::Float32:
      return kFloat32;
    case TensorType::Float16:
      return kFloat16;
    default:
      return kQuantised;
  }
}

// Where each value of a pixel goes: an image's bytes in its planes as
// `out` lays them (every plane of one stride), a tensor's values
// interleaved (NHWC, one channel) or a plane a channel (NCHW).
Result<void> place_values(Pass &p, const plan::OutputLayout &layout, const OutputSpec &out) {
  if (const TensorSpec *t = out.tensor()) {
    const long long bytes = (long long)t->element_bytes();
    const bool planar = t->layout == TensorLayout::Nchw;
    p.step = int(planar ? bytes : bytes * t->channels);
    p.out_stride = p.step * t->width;
    for (guint c = 0; c < t->channels; ++c)
      p.plane[c] = planar ? (long long)c * t->width * t->height * bytes : (long long)c * bytes;
    return {};
  }
  const GstVideoInfo &info = *out.image();
  p.out_stride = GST_VIDEO_INFO_PLANE_STRIDE(&info, 0);
  p.step = int(layout.planes[0].bytes_per_pixel);
  int b = 0;
  for (guint plane = 0; plane < layout.n_planes; ++plane) {
    if (GST_VIDEO_INFO_PLANE_STRIDE(&info, plane) != p.out_stride)
      return Error{EINVAL, "the CUDA pass writes planes of one stride"};
    for (guint k = 0; k < layout.planes[plane].bytes_per_pixel; ++k)
      p.plane[b++] = (long long)GST_VIDEO_INFO_PLANE_OFFSET(&info, plane) + k;
  }
  return {};
}

// Value b's colour row and border level: byte k of output plane `plane`.
void set_rows(Pass &p, int b, const plan::ByteRows &rows, const plan::ByteRows &fill, int k) {
  for (int c = 0; c < 4; ++c)
    p.coef[b][c] = rows.coef[k][c];
  p.constant[b] = rows.constant[k];
  p.fill[b] =
      (unsigned char)std::lround(std::fmin(std::fmax(fill.constant[k], 0.0f), 1.0f) * 255.0f);
}

void set_norm(Pass &p, const TensorSpec &t, const TensorNorm &norm) {
  p.kind = value_kind(t.type);
  for (int c = 0; c < 3; ++c) {
    p.mean[c] = norm.mean[c];
    p.stddev[c] = norm.stddev[c];
  }
  p.quant_scale = norm.quant_scale;
  p.zero_point = norm.zero_point;
  p.low = t.type == TensorType::Int8 ? -128 : 0;
  p.high = t.type == TensorType::Int8 ? 127 : 255;
}

}  // namespace

Result<Pass> plan_pass(const GstVideoInfo &in, const OutputSpec &out, const ConvertParams &params) {
  const GstVideoFormat in_format = GST_VIDEO_INFO_FORMAT(&in);
  const TensorSpec *tensor = out.tensor();
  const GstVideoFormat out_format =
      tensor ? channel_format(*tensor, params) : GST_VIDEO_INFO_FORMAT(out.image());
  const auto source = plan::source_layout(in_format);
  const auto output = plan::output_layout(out_format);
  if (!reads(in_format) || !source)
    return Error{EINVAL, std::string("the CUDA pass does not read ") +
                             gst_video_format_to_string(in_format)};
  if (tensor ? !writes(tensor->type) : !writes(out_format) || !output)
    return Error{EINVAL, "the CUDA pass does not write " + out.describe()};
  Pass p;
  p.semi_planar = in_format == GST_VIDEO_FORMAT_NV12;
  p.y_w = GST_VIDEO_INFO_WIDTH(&in);
  p.y_h = GST_VIDEO_INFO_HEIGHT(&in);
  p.c_w = GST_VIDEO_INFO_COMP_WIDTH(&in, 1);
  p.c_h = GST_VIDEO_INFO_COMP_HEIGHT(&in, 1);
  p.y_stride = GST_VIDEO_INFO_PLANE_STRIDE(&in, 0);
  p.u_stride = GST_VIDEO_INFO_PLANE_STRIDE(&in, 1);
  p.v_stride = p.semi_planar ? p.u_stride : GST_VIDEO_INFO_PLANE_STRIDE(&in, 2);
  p.out_w = out.width();
  p.out_h = out.height();
  if (auto placed = place_values(p, *output, out); !placed)
    return placed.error();
  const GstVideoRectangle &c = params.content;
  p.content[0] = c.x, p.content[1] = c.y, p.content[2] = c.w, p.content[3] = c.h;
  const plan::Geometry g = plan::plan_geometry(params);
  for (int i = 0; i < 2; ++i) {
    p.map_x[i] = g.map_x[i];
    p.map_y[i] = g.map_y[i];
    p.map_o[i] = g.map_o[i];
    p.half[i] = float(g.footprint[i] / 2);
    // As the GL pass: the box only where a pixel spans more than kBoxFrom
    // source pixels, and never for nearest.
    p.box[i] = !g.nearest && plan::takes_box(g.footprint[i]);
  }
  for (int i = 0; i < 4; ++i) {
    p.clamp[i] = g.clamp[i];
    p.edges[i] = g.edges[i];
  }
  p.nearest = g.nearest;
  const auto siting = plan::chroma_siting(in);
  for (int i = 0; i < 4; ++i)
    p.chroma[i] = siting[i];

  const bool gray = output->gray;
  const plan::ColourTransform colour = plan::colour_transform(*source, in, params, gray);
  int b = 0;
  for (guint plane = 0; plane < output->n_planes; ++plane) {
    const plan::OutputPlane &bytes = output->planes[plane];
    const plan::ByteRows rows = plan::content_rows(colour, bytes, false);
    const plan::ByteRows fill = plan::fill_rows(params, bytes, gray);
    for (guint k = 0; k < bytes.bytes_per_pixel; ++k)
      set_rows(p, b++, rows, fill, int(k));
  }
  p.values = b;
  if (tensor)
    set_norm(p, *tensor, params.norm);
  return p;
}

OutputRows output_rows(const OutputSpec &out) {
  OutputRows r;
  if (const TensorSpec *t = out.tensor()) {
    r.bytes = t->size();
    r.planes[0] = {0, r.bytes, r.bytes, 1};
    return r;
  }
  const GstVideoInfo &info = *out.image();
  r.n_planes = GST_VIDEO_INFO_N_PLANES(&info);
  for (guint p = 0; p < r.n_planes; ++p) {
    const size_t pitch = size_t(GST_VIDEO_INFO_PLANE_STRIDE(&info, p));
    const size_t rows = size_t(GST_VIDEO_INFO_COMP_HEIGHT(&info, p));
    r.planes[p] = {
        GST_VIDEO_INFO_PLANE_OFFSET(&info, p), pitch,
        size_t(GST_VIDEO_INFO_COMP_WIDTH(&info, p)) * size_t(GST_VIDEO_INFO_COMP_PSTRIDE(&info, p)),
        rows};
    r.bytes = std::max(r.bytes, r.planes[p].offset + pitch * rows);
  }
  return r;
}

void place_source(Pass &pass, unsigned long long base, const GstVideoInfo &in) {
  pass.y = base + GST_VIDEO_INFO_PLANE_OFFSET(&in, 0);
  pass.u = base + GST_VIDEO_INFO_PLANE_OFFSET(&in, 1);
  pass.v = pass.semi_planar ? pass.u : base + GST_VIDEO_INFO_PLANE_OFFSET(&in, 2);
}

void run_on_host(const Pass &pass) {
  for (int y = 0; y < pass.out_h; ++y)
    for (int x = 0; x < pass.out_w; ++x)
      write_pixel(pass, x, y);
}

}  // namespace ef::gst::cuda
