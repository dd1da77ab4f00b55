// SPDX-License-Identifier: LGPL-2.1-or-later
// The metas of efconvert's outputs and tensors. Every output carries
// GstEfTransformMeta (tensor pixels to camera pixels) and its identity;
// built against GStreamer 1.26 or later also a GstTensorMeta of one
// GstTensor over the same memory, so GStreamer's analytics consumers find
// it. A frame a tensor is attached to (attach-tensor) carries
// GstEfTensorMeta and, on 1.26+, a GstTensorMeta, both holding the tensor.
#pragma once

#include <gst/gst.h>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

// On every output (image or tensor) efconvert made from a frame as
// `params` planned: the transform meta and the output's identity, pooled
// (no allocation once a pool's buffers are warm). false where the output's
// memory has no identity.
bool describe_output(GstBuffer *out, const ConvertParams &params);

// On a tensor buffer, besides: GstTensorMeta (1.26+).
void add_tensor_meta(GstBuffer *tensor, const TensorSpec &spec, GQuark id);

// On `frame`, the tensor (described) made of it.
void attach_tensor(GstBuffer *frame, GstBuffer *tensor, const TensorSpec &spec, GQuark id);

}  // namespace ef::gst
