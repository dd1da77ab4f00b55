// SPDX-License-Identifier: LGPL-2.1-or-later
#include "deep_samples.hpp"

#include <algorithm>
#include <cstring>

#include "common/vectorize.hpp"

namespace ef::gst {
namespace {

// A little-endian word at any alignment (GStreamer's 16-bit formats are
// little-endian in memory, as this host is).
inline uint16_t word_at(const uint8_t *p) {
  uint16_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

// Sample i of a row of 10-bit samples packed four in five bytes, bit 10i
// on: the two bytes from bit 8 * floor(10i / 8) hold all ten of its bits.
inline uint16_t sample40(const uint8_t *row, int i) {
  const int bit = 10 * i;
  const uint16_t two = uint16_t(row[bit >> 3] | row[(bit >> 3) + 1] << 8);
  return uint16_t(((two >> (bit & 7)) & 0x3ff) << 6);
}

}  // namespace

EF_VECTORIZE void copy_words(const uint8_t *src, uint16_t *dst, int n) {
  std::memcpy(dst, src, size_t(n) * 2);
}

EF_VECTORIZE void words_to_msb(const uint8_t *src, uint16_t *dst, int n, int bits) {
  const uint16_t max = uint16_t((1u << bits) - 1);
  const int shift = 16 - bits;
  for (int i = 0; i < n; ++i)
    dst[i] = uint16_t(std::min(word_at(src + 2 * i), max) << shift);
}

EF_VECTORIZE void split_words(const uint8_t *src, uint16_t *u, uint16_t *v, int n) {
  for (int i = 0; i < n; ++i) {
    u[i] = word_at(src + 4 * i);
    v[i] = word_at(src + 4 * i + 2);
  }
}

void unpack40(const uint8_t *row, int first, uint16_t *dst, int n) {
  for (int i = 0; i < n; ++i)
    dst[i] = sample40(row, first + i);
}

void unpack40_pairs(const uint8_t *row, int first, uint16_t *u, uint16_t *v, int n) {
  for (int i = 0; i < n; ++i) {
    u[i] = sample40(row, 2 * (first + i));
    v[i] = sample40(row, 2 * (first + i) + 1);
  }
}

}  // namespace ef::gst
