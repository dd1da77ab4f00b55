// SPDX-License-Identifier: LGPL-2.1-or-later
// How precise a float tensor is, for the tensor tests of both backends:
// against the exact value computed here in double, independently of any
// backend's own output: the box reference of the source (box_reference.hpp:
// the mean over each output pixel's footprint, chroma sited, then the
// source's matrix and range), clamped to 0..255 and normalised. The frames
// are what an 8-bit rounding shows on: text (strokes of one to three
// pixels over coloured patches) and noise, at 2:1 and odd reductions, and
// a 10-bit gradient in P010, whose values lie between the 8-bit levels.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "tensors.hpp"

namespace ef::test {

// Bounds, in levels (0-255 units), net of float16's own rounding (half a
// unit in its last place). Words of 8 fractional bits (the CPU's scaled
// planes) are 1/512 of a level off at most, float arithmetic far less;
// an 8-bit intermediate is 0.25 off on average and 0.5 at most before
// the colour matrix (about 0.35 and over 1 after it).
constexpr double kMeanBound = 0.02;
constexpr double kWorstBound = 0.1;
// Two backends' float tensors of one case: each within the bounds of the
// exact values, so within twice them of each other.
constexpr double kApartMeanBound = 2 * kMeanBound;
constexpr double kApartWorstBound = 2 * kWorstBound;

struct Precision {
  double mean = 0, worst = 0;  // levels from the exact values, net of float16's rounding
  double fractional = 0;       // share of the values more than 0.01 level from a whole level
  size_t distinct = 0;         // distinct values
};

// One case of the sweep: a frame of `in` into a stretched tensor.
struct PrecisionCase {
  std::string frame;  // "text", "noise" or "gradient"
  TensorCase tensor;
  TensorNormCase norm;
  std::string what;  // for messages
};

// The sweep's cases: text in NV12 and I420 and noise in NV12 at 2:1, 2.5:1
// and odd ratios (320x240 into 160x120, 128x96, 107x79), the P010 gradient
// into 160x120 and 107x79; float32 and float16; NHWC RGB and NCHW BGR; the
// default normalisation and ImageNet's.
std::vector<PrecisionCase> precision_cases();

// The case's source frame (system memory, made once per case kind).
GstBuffer *precision_frame(const PrecisionCase &c);

// `tensor` (the case's bytes) against the exact values of `frame`.
Precision precision_of(const PrecisionCase &c, GstBuffer *frame, const std::vector<guint8> &tensor);

// Each case through `element` (a gst-launch description of efconvert and
// its backend), held to the bounds; fails naming the first case past them
// (after printing every case's figures). The tensors, in case order.
std::vector<std::vector<guint8>> check_precision(const std::string &element);

// Two float tensors of case `c` in levels: the mean and largest difference.
Precision levels_apart(const PrecisionCase &c, const std::vector<guint8> &a,
                       const std::vector<guint8> &b);

}  // namespace ef::test
