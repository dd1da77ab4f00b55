// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_range.hpp"

#include <algorithm>
#include <cmath>

#include "common/vectorize.hpp"

namespace ef::gst::cpu {
namespace {

// A table pair of libyuv's with the blue coefficient restored where the
// layout is known (row.h's Intel one: kUVToB holds (U, V) coefficient pairs
// for B; the mirrored table, made with U and V swapped, holds it as the V
// coefficient of kUVToR), and whether the result decodes exactly.
class Restored {
 public:
  Restored(GstVideoColorMatrix matrix, const libyuv::YuvConstants &uv,
           const libyuv::YuvConstants &vu)
      : uv_(uv), vu_(vu) {
    double kr = 0, kb = 0;
    gst_video_color_matrix_get_Kr_Kb(matrix, &kr, &kb);
#if !defined(__aarch64__) && !defined(__arm__)
    const auto blue = uint8_t(std::lround(2 * (1 - kb) * 255 / 224 * 64));
    for (size_t i = 0; i < sizeof uv_.kUVToB; i += 2) {
      uv_.kUVToB[i] = blue;
      vu_.kUVToR[i + 1] = blue;
    }
#endif
    exact_ = decodes_exactly(matrix_, kr, kb, false);
  }

  const YuvMatrix *get() const {
    return exact_ ? &matrix_ : nullptr;
  }

 private:
  // The AVX2 kernels load the table with aligned 32-byte moves.
  alignas(64) libyuv::YuvConstants uv_;
  alignas(64) libyuv::YuvConstants vu_;
  const YuvMatrix matrix_{&uv_, &vu_};
  bool exact_ = false;
};

}  // namespace

const YuvMatrix *exact_limited_range(GstVideoColorMatrix matrix) {
  static const Restored bt601(GST_VIDEO_COLOR_MATRIX_BT601, libyuv::kYuvI601Constants,
                              libyuv::kYvuI601Constants);
  static const Restored bt709(GST_VIDEO_COLOR_MATRIX_BT709, libyuv::kYuvH709Constants,
                              libyuv::kYvuH709Constants);
  static const Restored bt2020(GST_VIDEO_COLOR_MATRIX_BT2020, libyuv::kYuv2020Constants,
                               libyuv::kYvu2020Constants);
  switch (matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT601:
      return bt601.get();
    case GST_VIDEO_COLOR_MATRIX_BT709:
      return bt709.get();
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      return bt2020.get();
    default:
      return nullptr;
  }
}

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
