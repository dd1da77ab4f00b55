// SPDX-License-Identifier: LGPL-2.1-or-later
// The metas of efconvert's tensors. Every tensor buffer carries
// GstEfTransformMeta (tensor pixels to camera pixels) and its identity;
// built against GStreamer 1.26 or later also a GstTensorMeta of one
// GstTensor over the same memory, so GStreamer's analytics consumers find
// it. A frame a tensor is attached to (attach-tensor) carries
// GstEfTensorMeta and, on 1.26+, a GstTensorMeta, both holding the tensor.
#pragma once

#include <gst/gst.h>

#include "convert_params.hpp"
#include "output_spec.hpp"

namespace ef::gst {

// On a tensor buffer efconvert made from a frame as `params` planned.
void describe_tensor(GstBuffer *tensor, const TensorSpec &spec, GQuark id,
                     const ConvertParams &params);

// On `frame`, the tensor (described) made of it.
void attach_tensor(GstBuffer *frame, GstBuffer *tensor, const TensorSpec &spec, GQuark id);

}  // namespace ef::gst
