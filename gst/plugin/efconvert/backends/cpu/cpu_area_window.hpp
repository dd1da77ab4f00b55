// SPDX-License-Identifier: LGPL-2.1-or-later
// cpu_area's horizontal pass where each output's taps, times its channels,
// lie within 8 column sums of 16 bits (the common reductions: 3:1 luma,
// 3:1 and mpeg2-sited NV12 chroma, 6.4:1 luma): one unaligned load an
// output, its pairs of taps multiplied and added in one instruction
// (pmaddwd), two outputs a vector and a short tree of horizontal adds per
// eight. The wider paths (cpu_area.cpp) take one 32-bit multiply a tap and
// a longer tree; these sums are the same integers.
#pragma once

#include <cstdint>

#include "cpu_area.hpp"
#include "cpu_simd.hpp"

namespace ef::gst::cpu {

// Whether `tx` fits: `channels` 1 or 2, taps times channels at most 8,
// weights below 2^15 (the signed range the multiply reads) and column sums
// (at most `col_top`) below 2^16.
bool window_fits(const Taps &tx, int channels, uint32_t col_top);

// Words of weights the plan of `tx` takes: 8 an output, for the outputs
// in whole eights.
size_t window_words(const Taps &tx);

// Each output's weights laid out as the loads and shuffles of
// sum_window() meet its column sums.
void plan_window(const Taps &tx, int channels, int16_t *weights);

#ifdef EF_CPU_X86
// Channel c of output i at sums[c * tx.outputs + i], for the outputs in
// whole eights (the rest are left to the caller). AVX2.
void sum_window(const uint16_t *col, const Taps &tx, const int16_t *weights, int channels,
                uint32_t *sums);
#endif

}  // namespace ef::gst::cpu
