// SPDX-License-Identifier: LGPL-2.1-or-later
// Rows of a deep source's samples (more than 8 bits: P010_10LE,
// I420_10LE, NV12_10LE40, ...) read as 16-bit samples holding the sample in
// the high bits, P010's layout: what the CPU backend scales and decodes
// (cpu/cpu_deep.hpp), and what the GL backend uploads NV12_10LE40 as.
#pragma once

#include <cstdint>

namespace ef::gst {

// One row of source samples into 16-bit samples in the high bits. `src`
// needs no alignment (a padded stride may be odd); `first` counts samples
// (Packed40) or words from the row's start.
// Msb: n words as they are.
void copy_words(const uint8_t *src, uint16_t *dst, int n);
// Lsb: n words of `bits` bits, moved to the high bits (larger values clamped).
void words_to_msb(const uint8_t *src, uint16_t *dst, int n, int bits);
// Msb interleaved U,V: n pairs split.
void split_words(const uint8_t *src, uint16_t *u, uint16_t *v, int n);
// Packed40: samples [first, first + n) of the row.
void unpack40(const uint8_t *row, int first, uint16_t *dst, int n);
// Packed40 interleaved U,V: pairs [first, first + n) of the row, split.
void unpack40_pairs(const uint8_t *row, int first, uint16_t *u, uint16_t *v, int n);

}  // namespace ef::gst
