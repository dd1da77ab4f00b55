// SPDX-License-Identifier: LGPL-2.1-or-later
// One GL display (and, asked for, one GL context) for the pipeline before
// any stream starts. GL elements that find their display on their
// streaming threads, all at once (decoders: nvh264dec when it negotiates
// its first frame), each find none yet and make one, and a GL context and
// GL thread with it: 16 nvh264dec made 6 to 16 contexts on an H200, and
// efconvert, which runs on its upstream's context, ran on each of them
// (docs/BENCHMARKS.md, "Many streams"). GstGL's own filters find their
// display at NULL -> READY, which the application's thread does element
// after element, sinks first, and announce it to the pipeline as a
// GstContext: an element that looks later is given it. efconvert does the
// same unless backend=cpu (which needs no GL): every decoder upstream then
// finds that display, as when the application sets one on the pipeline.
//
// EF_GL_EARLY (diagnostics, for measuring):
//   display  the above (the default);
//   context  also the GL context at READY -> PAUSED: a decoder asks its
//            downstream for a GL context before it makes one, and takes
//            efconvert's, so every decoder and efconvert of the pipeline
//            shares one context and GL thread (as glimagesink's upstream
//            shares the sink's);
//   context:N the same over N contexts, taken in turn by the elements
//            (each decoder takes its efconvert's): N GL threads;
//   none     the display and context found when caps are set, as before.
#pragma once

#include <gst/gst.h>

namespace ef::gst {

struct ConvertState;

// From efconvert's change_state, before the parent class's.
void share_gl_early(GstElement *element, ConvertState &state, GstStateChange transition);

}  // namespace ef::gst
