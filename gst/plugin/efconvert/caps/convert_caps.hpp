// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's caps, all made from the backends' tables (backend_table.hpp):
// the pad templates, what one side's caps allow on the other, and the
// output size it settles on.
#pragma once

#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <optional>
#include <string>

#include "common/dma_drm_caps.hpp"
#include "efconvert/backends/memory_kinds.hpp"
#include "efconvert/plan/output_spec.hpp"
#include "efconvert/tensors/tensor_settings.hpp"

namespace ef::gst {

// The pad templates: every input and output of every backend's table,
// what gst-inspect shows.
std::string sink_template_caps();
std::string src_template_caps();
// The source pad's own template: src_template_caps() and the frames that
// attach-tensor passes through as they came (GstBaseTransform intersects
// the caps with the pad's template, so they must be in it). gst-inspect
// shows the class's template, which says what efconvert makes.
std::string src_pad_caps();

// dma-bufs are mapped (CPU) or imported plane by plane (GL) in, and are
// memfds or dma-heap buffers out: LINEAR both ways.
const DrmSupport &drm_in();
const DrmSupport &drm_out();

// transform_caps: each structure of `caps` of one side turned into what
// the backends' tables make of it (or from it) on the other side, in every
// memory they make it in, any size (within the CPU path's limit where there
// is a filter: narrow_for_query), then `filter`.
GstCaps *retarget_caps(GstPadDirection direction, GstCaps *caps, GstCaps *filter);

// `caps` without its structures in memory `m` (takes `caps`).
GstCaps *without_memory(GstCaps *caps, FrameMemory m);

// fixate_caps: without a size from downstream the output keeps the input's
// size turned by `turn`, and its frame rate. Takes `othercaps`.
GstCaps *fixate_output_caps(GstPadDirection direction, GstCaps *caps, GstCaps *othercaps,
                            GstVideoOrientationMethod turn);

// set_caps: the input's video info and what the output is (an image, or a
// tensor checked against the tensor settings), or nullopt with an error on
// the bus naming what is wrong.
struct Negotiated {
  GstVideoInfo in;
  OutputSpec out;
};
std::optional<Negotiated> negotiated_output(GstElement *element, GstCaps *incaps, GstCaps *outcaps,
                                            const TensorSettings &tensor);

// attach-tensor's caps made fixed for `incaps` (as fixate_caps would make
// them, the input's size turned by `turn` where they name none), or null
// with an error posted: not tensor caps, or none efconvert makes.
GstCaps *attached_tensor_caps(GstElement *element, GstCaps *attach, GstCaps *incaps,
                              GstCaps *outcaps, GstVideoOrientationMethod turn);

// Why efconvert takes no input of `caps` that the pads' caps would say:
// formats no backend reads in their memory ("efconvert0 cannot convert
// P010_10BE frames: it reads NV12, I420, ..."; DMA_DRM names layouts, which
// dma_drm_caps checks), or, for fixed caps, fields one a buffer
// (interlace.hpp); "" when neither.
std::string refused_input_message(GstElement *element, GstCaps *caps);

// Whether no backend reads any input of `caps` (video/x-raw structures
// naming formats, none read in any memory: NV16): a caps query with them
// can only find nothing.
bool reads_none_of(GstCaps *caps);

// Why efconvert makes nothing `downstream` takes (caps a downstream pad
// answered: NV12 frames, int32 tensors), naming what it makes; "" where it
// makes some of it.
std::string refused_output_message(GstElement *element, GstCaps *downstream);

}  // namespace ef::gst
