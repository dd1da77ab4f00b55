// SPDX-License-Identifier: LGPL-2.1-or-later
// Limited-range YUV bytes to full range, for matrices whose limited-range
// constants libyuv cannot hold: its blue-from-U coefficient is a signed byte
// in 1/64 (at most 1.98), and BT.709 needs 2.11, BT.2020 2.14; with the bytes
// expanded, the full-range constants (1.86, 1.88) fit.
#pragma once

#include <cstdint>

namespace ef::gst::cpu {

// Y: 16..235 to 0..255. n bytes.
void expand_luma(const uint8_t *in, uint8_t *out, int n);
// U and V: 16..240 to 0..255 about 128. n bytes.
void expand_chroma(const uint8_t *in, uint8_t *out, int n);

}  // namespace ef::gst::cpu
