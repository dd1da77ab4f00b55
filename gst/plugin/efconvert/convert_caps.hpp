// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's caps: the formats and memories on each side, what one side's
// caps allow on the other, and the output size it settles on.
#pragma once

#include <gst/ef/gstef.h>
#include <gst/video/video.h>
#ifdef EF_HAVE_GSTGL
#include <gst/gl/gl.h>
#endif

#include "backend_choice.hpp"
#include "common/dma_drm_caps.hpp"

#define EF_CONVERT_IN_FORMATS "{ NV12, I420, YUY2, UYVY, RGBA, BGRA, RGBx, BGRx, RGB, BGR, GRAY8 }"
#define EF_CONVERT_OUT_FORMATS "{ RGB, BGR, RGBA, BGRA, RGBx, BGRx, GRAY8, RGBP, BGRP }"
// As GL textures: the formats the GL backend renders as pixels.
#define EF_CONVERT_GL_OUT_FORMATS "{ RGBA, BGRA, RGBx, BGRx }"

namespace ef::gst {

inline constexpr const char *kConvertSinkCaps = GST_VIDEO_CAPS_MAKE(
    EF_CONVERT_IN_FORMATS) ";" EF_DMABUF_CAPS(EF_CONVERT_IN_FORMATS)
#ifdef EF_HAVE_GSTGL
    ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, EF_CONVERT_IN_FORMATS)
#endif
    ;
inline constexpr const char *kConvertSrcCaps =
    GST_VIDEO_CAPS_MAKE(EF_CONVERT_OUT_FORMATS) ";" EF_DMABUF_OUT_CAPS(EF_CONVERT_OUT_FORMATS)
#ifdef EF_HAVE_GSTGL
        ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_GL_MEMORY,
                                              EF_CONVERT_GL_OUT_FORMATS)
#endif
    ;

// dma-bufs are mapped (CPU) or imported plane by plane (GL) in, and are
// memfds or dma-heap buffers out: LINEAR both ways.
const DrmSupport &drm_in();
const DrmSupport &drm_out();

// transform_caps: `caps` of one side retargeted to the other side's formats
// in every memory, any size within the CPU path's limit, then `filter`.
GstCaps *retarget_caps(GstPadDirection direction, GstCaps *caps, GstCaps *filter);

// fixate_caps: without a size from downstream the output keeps the input's
// size turned by `turn`, and its frame rate. Takes `othercaps`.
GstCaps *fixate_output_caps(GstPadDirection direction, GstCaps *caps, GstCaps *othercaps,
                            GstVideoOrientationMethod turn);

bool is_gl_caps(GstCaps *caps);
FrameMemory memory_of(GstCaps *caps);

}  // namespace ef::gst
