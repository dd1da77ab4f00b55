// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend of efconvert: one fused pass built on libyuv.
#pragma once

#include <gst/video/video.h>

#include <vector>

#include "cpu_pool.hpp"
#include "cpu_tensor.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "ef/result.hpp"

namespace ef::gst {

// Formats the CPU backend reads and writes (images), the lists in the
// order its caps prefer them.
bool cpu_supports_input(GstVideoFormat format);
bool cpu_supports_output(GstVideoFormat format);
std::vector<GstVideoFormat> cpu_input_formats();
std::vector<GstVideoFormat> cpu_output_formats();

// Converts `src` into `dst` as `params` says: crop, turn, scale into the
// content rectangle, colour conversion, borders in params.fill. Writes every
// visible byte of dst, but the border rows above and below the content
// where `border_rows_in_place` (they hold these bytes already:
// cpu_border_tag.hpp). Large frames are cut into bands of rows on `pool`'s
// threads; the bytes are the same for every pool size. EINVAL for an
// unsupported format pair.
Result<void> cpu_convert(const GstVideoFrame &src, GstVideoFrame &dst, const ConvertParams &params,
                         cpu::Pool &pool, bool border_rows_in_place = false);
// The same on a pool of `threads` kept by the calling thread (made again
// when the count changes): for tests and tools.
Result<void> cpu_convert(const GstVideoFrame &src, GstVideoFrame &dst, const ConvertParams &params,
                         unsigned threads);

// The same into a tensor, as `kernel` says (made for params.norm, the
// tensor's type and channels): an int8 or uint8 tensor's values from the
// 8-bit values the conversion into an RGB, BGR, RGBP or GRAY8 frame would
// give; a float tensor's from the same colour before any rounding to 8
// bits, from every source (its planes scaled into words, its colour in
// float: cpu_deep.hpp).
Result<void> cpu_convert(const GstVideoFrame &src, const cpu::TensorTarget &dst,
                         const ConvertParams &params, const cpu::TensorKernel &kernel,
                         cpu::Pool &pool);
Result<void> cpu_convert(const GstVideoFrame &src, const cpu::TensorTarget &dst,
                         const ConvertParams &params, unsigned threads);

}  // namespace ef::gst
