// SPDX-License-Identifier: LGPL-2.1-or-later
// Chroma to twice its size across, and down where it is subsampled down: a
// frame converted at its own size (4:2:0 and 4:2:2 to every pixel's own
// chroma). Each output the linear interpolation between the sites of the
// samples around it, for chroma cosited across and centred down (chroma-site
// mpeg2, GStreamer's default for HD): the bytes cpu_area gives there, at a
// tenth of its cost. libyuv's own 2x is for centred chroma.
#pragma once

#include <cstdint>

namespace ef::gst::cpu {

// Rows [r0, r1) of the 2w x (down ? 2h : h) outputs from w x h samples at
// `src`: U,V pairs into planes u and v (interleaved), or bytes into u.
void up2_cosited_rows(const uint8_t *src, int stride, int w, int h, bool interleaved, bool down,
                      uint8_t *u, int u_stride, uint8_t *v, int v_stride, int r0, int r1);

}  // namespace ef::gst::cpu
