// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cuda_plan.hpp"

#include <cmath>
#include <string>

#include "efconvert/plan/pass_plan.hpp"

namespace ef::gst::cuda {

bool reads(GstVideoFormat format) {
  return format == GST_VIDEO_FORMAT_NV12 || format == GST_VIDEO_FORMAT_I420;
}

bool writes(GstVideoFormat out) {
  const auto layout = plan::output_layout(out);
  return layout && layout->n_planes == 1;
}

Result<Pass> plan_pass(const GstVideoInfo &in, const GstVideoInfo &out,
                       const ConvertParams &params) {
  const GstVideoFormat in_format = GST_VIDEO_INFO_FORMAT(&in);
  const GstVideoFormat out_format = GST_VIDEO_INFO_FORMAT(&out);
  const auto source = plan::source_layout(in_format);
  const auto output = plan::output_layout(out_format);
  if (!reads(in_format) || !source)
    return Error{EINVAL, std::string("the CUDA pass does not read ") +
                             gst_video_format_to_string(in_format)};
  if (!writes(out_format) || !output)
    return Error{EINVAL, std::string("the CUDA pass does not write ") +
                             gst_video_format_to_string(out_format)};
  Pass p;
  p.semi_planar = in_format == GST_VIDEO_FORMAT_NV12;
  p.y_w = GST_VIDEO_INFO_WIDTH(&in);
  p.y_h = GST_VIDEO_INFO_HEIGHT(&in);
  p.c_w = GST_VIDEO_INFO_COMP_WIDTH(&in, 1);
  p.c_h = GST_VIDEO_INFO_COMP_HEIGHT(&in, 1);
  p.y_stride = GST_VIDEO_INFO_PLANE_STRIDE(&in, 0);
  p.u_stride = GST_VIDEO_INFO_PLANE_STRIDE(&in, 1);
  p.v_stride = p.semi_planar ? p.u_stride : GST_VIDEO_INFO_PLANE_STRIDE(&in, 2);
  const plan::OutputPlane &plane = output->planes[0];
  p.bpp = int(plane.bytes_per_pixel);
  p.out_w = GST_VIDEO_INFO_WIDTH(&out);
  p.out_h = GST_VIDEO_INFO_HEIGHT(&out);
  p.out_stride = GST_VIDEO_INFO_PLANE_STRIDE(&out, 0);
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
  const plan::ByteRows rows =
      plan::content_rows(plan::colour_transform(*source, in, params, gray), plane, false);
  const plan::ByteRows fill = plan::fill_rows(params, plane, gray);
  for (int b = 0; b < 4; ++b) {
    for (int k = 0; k < 4; ++k)
      p.coef[b][k] = rows.coef[b][k];
    p.constant[b] = rows.constant[b];
    p.fill[b] =
        (unsigned char)std::lround(std::fmin(std::fmax(fill.constant[b], 0.0f), 1.0f) * 255.0f);
  }
  return p;
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
