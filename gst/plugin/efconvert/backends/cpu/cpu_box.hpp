// SPDX-License-Identifier: LGPL-2.1-or-later
// Reductions by exactly 3, and 1.5, in both directions by area: each
// output sample the rounded mean of the input it covers. 1080p to 640x360 is the common
// case: there libyuv's bilinear filter falls back to point sampling (it
// aliases) and its box filter runs in C at four times the cost of the rest
// of the conversion; libyuv's own kernels for 2 and 4 are fast.
#pragma once

#include <cstdint>

namespace ef::gst::cpu {

// w x h samples from the 3w x 3h at `src`. Into 16-bit words (strides in
// bytes whatever the sample), each mean times 256 rounded to a word: the
// planes of a float tensor (cpu_steps.hpp), here and below.
void box3_plane(const uint8_t *src, int src_stride, uint8_t *dst, int dst_stride, int w, int h);
void box3_plane(const uint8_t *src, int src_stride, uint16_t *dst, int dst_stride, int w, int h);
// The same for interleaved U,V pairs (3w x 3h of them), written as planes;
// `cosited`: each pair on the first of the two pixels it covers across
// (chroma-site mpeg2), down centred.
void box3_uv(const uint8_t *src, int src_stride, uint8_t *dst_u, int stride_u, uint8_t *dst_v,
             int stride_v, int w, int h, bool cosited);

// Interleaved U,V pairs reduced by 1.5 (3 to 2) in both directions by
// area: the chroma of 1080p NV12 at 640x360. 2w x 2h outputs from 3w x 3h
// pairs, written as planes. `cosited`: each pair sits on the first of the
// two pixels it covers across (chroma-site mpeg2, GStreamer's default for
// HD), a quarter of a pair on from where centred chroma sits; down, centred.
void box32_uv(const uint8_t *src, int src_stride, uint8_t *dst_u, int stride_u, uint8_t *dst_v,
              int stride_v, int w, int h, bool cosited);
void box32_uv(const uint8_t *src, int src_stride, uint16_t *dst_u, int stride_u, uint16_t *dst_v,
              int stride_v, int w, int h, bool cosited);

}  // namespace ef::gst::cpu
