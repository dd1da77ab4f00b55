// SPDX-License-Identifier: LGPL-2.1-or-later
// Reductions by exactly 3, and 1.5, in both directions by area: each
// output sample the rounded mean of the input it covers. 1080p to 640x360 is the common
// case: there libyuv's bilinear filter falls back to point sampling (it
// aliases) and its box filter runs in C at four times the cost of the rest
// of the conversion; libyuv's own kernels for 2 and 4 are fast.
#pragma once

#include <cstdint>

namespace ef::gst::cpu {

// w x h samples from the 3w x 3h at `src`.
void box3_plane(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int w, int h);
// The same for interleaved U,V pairs (3w x 3h of them), written as planes.
void box3_uv(const uint8_t *src, int src_stride, uint8_t *dst_u, int stride_u, uint8_t *dst_v,
             int stride_v, int w, int h);

// Interleaved U,V pairs reduced by 1.5 (3 to 2) in both directions by
// area: the chroma of 1080p NV12 at 640x360. 2w x 2h outputs from 3w x 3h
// pairs, written as planes.
void box32_uv(const uint8_t *src, int src_stride, uint8_t *dst_u, int stride_u, uint8_t *dst_v,
              int stride_v, int w, int h);

}  // namespace ef::gst::cpu

namespace ef::gst::cpu {

// Boxes with more pixels than this go through box_plane_area(): libyuv's
// box divides by a 16-bit reciprocal (65536 / area, truncated), which is
// exact to a level up to here and darkens larger boxes (a 160 x 120 box
// loses 12%), and it sums a box's column in 16 bits (more than 257 rows of
// 255 overflow).
inline constexpr int kLibyuvBoxMaxArea = 256;

// The rounded mean of every source pixel in each output pixel's box, with
// libyuv's integer box edges (output x covers source [x * sw / dw,
// (x + 1) * sw / dw)), summed in 32 bits. For strong reductions: one pass
// over the source, like libyuv's box. Writes output rows [oy0, oy1) of the
// dw x dh output at `dst`; each row is the same whatever the range.
void box_plane_area(const uint8_t *src, int src_stride, int sw, int sh, uint8_t *dst,
                    int dst_stride, int dw, int dh, int oy0, int oy1);
// The same over 16-bit samples (a deep image's planes; strides in bytes).
void box_plane_area_16(const uint8_t *src, int src_stride, int sw, int sh, uint8_t *dst,
                       int dst_stride, int dw, int dh, int oy0, int oy1);

}  // namespace ef::gst::cpu
