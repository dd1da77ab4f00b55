// SPDX-License-Identifier: LGPL-2.1-or-later
// The CUDA pass's numbers for one conversion, on the CPU: the pass plan's
// geometry, colour rows and border (pass_plan), the GL pass's too, so both
// GPU backends make the same picture. No CUDA here: the tests plan and run passes on the host
// (run_on_host) where there is no GPU.
#pragma once

#include <gst/video/video.h>

#include "cuda_pass.hpp"
#include "ef/result.hpp"
#include "efconvert/plan/convert_params.hpp"

namespace ef::gst::cuda {

// Whether the pass reads `format` (8-bit 4:2:0: NV12, I420) and writes
// `out` (one plane of whole pixels: RGB, BGR, RGBA, BGRA, RGBx, BGRx,
// GRAY8).
bool reads(GstVideoFormat format);
bool writes(GstVideoFormat out);

// The pass for `in` (its planes' strides and offsets as the memory lies;
// y, u and v are 0 until the caller adds the planes' addresses) into `out`
// (its stride the output's), or EINVAL where the pass cannot.
Result<Pass> plan_pass(const GstVideoInfo &in, const GstVideoInfo &out,
                       const ConvertParams &params);

// The source planes at `base` (the address of the memory holding the
// frame) as `in`'s offsets place them.
void place_source(Pass &pass, unsigned long long base, const GstVideoInfo &in);

// Every pixel of `pass` on this CPU (its addresses host addresses).
void run_on_host(const Pass &pass);

}  // namespace ef::gst::cuda
