// SPDX-License-Identifier: LGPL-2.1-or-later
// What the GL backend's shader needs to know beyond the pass's plan
// (pass_plan.hpp, which every GPU pass reads): how a source lies in
// GstGL's textures, a planar output as one program's draw buffers, texel
// spans, the colour of a glClear and the box's bilinear fetches. No GL
// calls here, so that all of it is plain arithmetic.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <optional>
#include <vector>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/pass_plan.hpp"

namespace ef::gst::gl {

// The plan's names, as the GL pass uses them (pass_plan.hpp).
using plan::ByteRows;
using plan::chroma_siting;
using plan::colour_transform;
using plan::ColourTransform;
using plan::content_rows;
using plan::fill_rows;
using plan::Geometry;
using plan::kBoxFrom;
using plan::output_layout;
using plan::OutputLayout;
using plan::OutputPlane;
using plan::plan_geometry;
using plan::source_layout;
using plan::SourceKind;
using plan::SourceLayout;
using plan::takes_box;

// The layout of the source textures the backend makes for `in` (imports
// and uploads): `in` itself, but YUY2 and UYVY of an odd width one pixel
// wider, the same bytes. GstGL makes their RG8 texture as wide as the frame,
// which leaves out the V of the last pair (texel `width`, the pair's padding
// pixel) although every valid frame's rows hold it. NV12_10LE40, which no
// texture format holds, as P010_10LE of its size.
GstVideoInfo texture_info(const GstVideoInfo &in);

// A planar output's planes as the bytes of one pixel, plane p in byte p:
// the one-pass program computes them together from one sample and writes
// byte p into draw buffer p.
OutputPlane planes_as_one(const OutputLayout &output);

// The colour a glClear fills a plane's border with, in a target of
// `texel_bytes` bytes a texel; none where texels of the border differ (a
// texel that is not whole pixels, of a colour whose bytes differ).
std::optional<std::array<float, 4>> clear_colour(const ByteRows &fill, guint bytes_per_pixel,
                                                 guint texel_bytes);

// Texels [x, x + w) of a row, of which only the bytes (channels) marked are
// to be written.
struct TexelSpan {
  gint x = 0, w = 0;
  std::array<bool, 4> bytes{true, true, true, true};
};

// Bytes [begin, end) of a row as texels of `texel_bytes` bytes: a run of
// whole texels and, where a byte edge falls inside a texel, that texel
// alone with the bytes inside the range (at most three spans).
std::vector<TexelSpan> texel_spans(gint begin, gint end, guint texel_bytes);

// The samples a box over `texels` texels takes along its axis: each is one
// bilinear fetch that weighs two neighbouring texels as the box does (a box
// that cuts n texels takes (n + 1) / 2).
guint box_samples(double texels);

}  // namespace ef::gst::gl
