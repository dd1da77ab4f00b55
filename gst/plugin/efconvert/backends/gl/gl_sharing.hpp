// SPDX-License-Identifier: LGPL-2.1-or-later
// One GL display (and, with gl-contexts, the GL context) for the pipeline
// before any stream starts. GL elements that find their display on their
// streaming threads, all at once (decoders: nvh264dec when it negotiates
// its first frame), each find none yet and make one, and a GL context and
// GL thread with it: 16 nvh264dec made 6 to 16 contexts on an H200, and
// efconvert, which runs on its upstream's context, ran on each of them
// (docs/BENCHMARKS.md, "Many streams"). GstGL's own filters find their
// display at NULL -> READY, which the application's thread does element
// after element, sinks first, and announce it to the pipeline as a
// GstContext: an element that looks later is given it. efconvert does the
// same where a GL path may come (the backend asked for converts on GL,
// gl-contexts >= 1, EF_GL_EARLY, or, where a backend that needs GL may
// run, a neighbour whose caps may carry GL memory: caps are not known yet
// at NULL -> READY, so the peers are asked; upstream not linked yet counts,
// as decodebin's decoder comes later): every decoder upstream then finds
// that display, as when the application sets one on the pipeline. Never
// where no backend the `backend` setting allows needs GL (backend=cpu),
// nor between system-memory neighbours: opening a display on a headless
// machine prints libwayland's XDG_RUNTIME_DIR error, and gst-launch prints
// its announcement, for a pipeline that needs no GL (backend=auto opens it
// at caps time where the machine has a GPU: the GL backend's entry).
//
// gl-contexts = K >= 1 makes (or takes) efconvert's GL context too, at
// READY -> PAUSED (before its upstream starts: a bin changes its sinks
// first), from a pool of K contexts of that display, taken in turn by the
// efconverts that start on it (ElementGlContext::ensure; one element at a
// time in the process). A decoder asks downstream for a GL context before
// it makes one, and takes efconvert's: the streams' GL work runs on K GL
// threads, not on one per decoder (6-16 behind 16 nvh264dec, each costing
// CPU) nor all on one (bound by that thread). 0 (the default): the context
// found when caps are set, the upstream's on GL memory.
//
// EF_GL_EARLY (diagnostics, for measuring; when set it decides for every
// efconvert of the process, whatever gl-contexts says):
//   display    the display at NULL -> READY, no context before caps
//              (gl-contexts=0's behaviour);
//   context    also the GL context at READY -> PAUSED, from a pool of 1:
//              every decoder and efconvert of the pipeline shares one
//              context and GL thread (as glimagesink's upstream shares the
//              sink's): gl-contexts=1;
//   context:K  the same over a pool of K contexts: gl-contexts=K;
//   none       the display and context found when caps are set, as before
//              efconvert looked early.
#pragma once

#include <gst/gst.h>

#include "common/gl_context.hpp"

namespace ef::gst {

// From efconvert's change_state (the GL device's hook), before the parent
// class's, where a backend that needs GL may run; `surely`: the backend
// asked for converts on GL (backend=gl), whatever the neighbours carry.
void share_gl_early(GstElement *element, ElementGlContext &gl, GstStateChange transition,
                    unsigned gl_contexts, bool surely);

}  // namespace ef::gst
