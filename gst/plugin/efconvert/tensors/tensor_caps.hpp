// SPDX-License-Identifier: LGPL-2.1-or-later
// Tensors in caps, in NNStreamer's static form, which its elements
// (tensor_filter, tensor_sink, tensor_transform) and most tensor consumers
// read:
//   other/tensors, format=(string)static, num_tensors=(int)1,
//   types=(string)float32, dimensions=(string)3:640:640:1, framerate=...
// `types` and `dimensions` are strings (one per tensor; one tensor here);
// dimensions run innermost first: "C:W:H:1" is NHWC, "W:H:C:1" NCHW, with
// C = 3 (colour) or 1 (luma). Where both readings fit (a tensor 1 or 3
// wide), the innermost is taken as the channels: NHWC.
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "ef/result.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

inline constexpr const char *kTensorsMedia = "other/tensors";

bool is_tensor_structure(const GstStructure *s);

// Unfixed tensor caps of `types` (a caps list), any dimensions, the
// framerate of `like` (a video structure) where it has one.
GstStructure *tensor_structure(const std::string &types, const GstStructure *like);

// "3:640:640:1" for NHWC, "640:640:3:1" for NCHW.
std::string dimensions_of(const TensorSpec &spec);

// "" where `s` has no dimensions field, or one of strings; else what is
// wrong: `dimensions=3:32` unquoted is parsed as a GstFlagSet, not the
// string NNStreamer's caps carry.
std::string dimensions_type_problem(const GstStructure *s);

// The layout in PyTorch's order beside NNStreamer's, which lists the
// innermost dimension first: "NCHW float32 tensor (1,3,640,640) =
// dimensions=640:640:3:1".
std::string layout_text(const TensorSpec &spec);

// Fixed tensor caps (the first structure); EINVAL naming what is wrong: a
// format other than static, num_tensors other than 1, an element type
// efconvert does not make, dimensions of neither layout, a batch other
// than 1, a side above `max_side`.
Result<TensorSpec> parse_tensor_caps(GstCaps *caps, gint max_side);

// fixate_caps for a tensor structure: dimensions, where downstream named
// none, of the input's turned size (w x h) as NHWC with 3 channels; one
// type; format static; one tensor; the input's frame rate.
void fixate_tensor_structure(GstStructure *out, gint w, gint h, const GValue *rate);

}  // namespace ef::gst
