// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_range.hpp"

#include <algorithm>

// GCC vectorizes these loops only with its full cost model (-O2 has the
// "very cheap" one): about 30 us instead of 200 for a 640x360 plane.
#if defined(__GNUC__) && !defined(__clang__)
#define EF_VECTORIZE __attribute__((optimize("tree-vectorize", "vect-cost-model=dynamic")))
#else
#define EF_VECTORIZE
#endif

namespace ef::gst::cpu {

// Both in 16-bit lanes: 255/219 as 298/256 and 255/224 as 291/256, within
// 0.2 of a level; neutral chroma stays 128.
EF_VECTORIZE void expand_luma(const uint8_t *in, uint8_t *out, int n) {
  for (int i = 0; i < n; ++i) {
    // Kept to 16 bits (219 * 298 + 128 < 65536): eight pixels a vector op.
    const uint16_t y = uint16_t(std::clamp<int>(in[i], 16, 235) - 16);
    out[i] = uint8_t(uint16_t(y * 298 + 128) >> 8);
  }
}

EF_VECTORIZE void expand_chroma(const uint8_t *in, uint8_t *out, int n) {
  for (int i = 0; i < n; ++i) {
    const int16_t c = int16_t(std::clamp<int>(in[i], 16, 240) - 128);
    out[i] = uint8_t(128 + (int16_t(c * 291 + 128) >> 8));
  }
}

}  // namespace ef::gst::cpu
