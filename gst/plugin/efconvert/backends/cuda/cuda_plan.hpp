// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA pass's numbers for one conversion, on the CPU: the pass plan's
// geometry, colour rows and border (pass_plan), the GL pass's too, so both
// GPU backends make the same picture. No CUDA here: the tests plan and run passes on the host
// (run_on_host) where there is no GPU.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cstddef>

#include "cuda_pass.hpp"
#include "ef/result.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst::cuda {

// Whether the pass reads `format` (8-bit 4:2:0: NV12, I420), writes `out`
// (the formats pass_plan lays out: RGB, BGR, the RGBA family, RGBP, BGRP,
// GRAY8) and tensors of `type` (every type, both layouts).
bool reads(GstVideoFormat format);
bool writes(GstVideoFormat out);
bool writes(TensorType type);

// The pass for `in` (its planes' strides and offsets as the memory lies;
// y, u and v are 0 until the caller adds the planes' addresses) into `out`
// (an image laid out as its GstVideoInfo says, a tensor as its bytes lie),
// or EINVAL where the pass cannot.
Result<Pass> plan_pass(const GstVideoInfo &in, const OutputSpec &out, const ConvertParams &params);

// Where the pass's output lies in its device memory (as plan_pass lays it
// out): `bytes` in all, and its rows, plane by plane, for the copies that
// bring it out (a tensor: one row of all its bytes).
struct OutputRows {
  struct Plane {
    size_t offset = 0, pitch = 0, row_bytes = 0, rows = 0;
  };
  size_t bytes = 0;
  unsigned n_planes = 1;
  std::array<Plane, 3> planes{};
};
OutputRows output_rows(const OutputSpec &out);

// The source planes at `base` (the address of the memory holding the
// frame) as `in`'s offsets place them.
void place_source(Pass &pass, unsigned long long base, const GstVideoInfo &in);

// Every pixel of `pass` on this CPU (its addresses host addresses).
void run_on_host(const Pass &pass);

}  // namespace ef::gst::cuda
