// SPDX-License-Identifier: LGPL-2.1-or-later
// GL textures out: a downstream GstGLBufferPool, else one of ours.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

namespace ef::gst {

gboolean decide_gl_output_pool(GstElement *element, GstGLContext *context, GstQuery *query,
                               GstCaps *caps, const GstVideoInfo &info);

}  // namespace ef::gst
