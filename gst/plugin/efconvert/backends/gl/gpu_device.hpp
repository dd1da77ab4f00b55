// SPDX-License-Identifier: LGPL-2.1-or-later
// Whether the machine has a GPU, known without opening GL: opening a
// GstGLDisplay where there is none tries each platform in turn (Wayland
// first, whose client library prints "XDG_RUNTIME_DIR is invalid" on a
// headless machine) and announces the display to the pipeline, only to
// find a software rasterizer, which backend=auto never picks for frames in
// plain memory (backend_choice). A GPU shows as a device node: a DRM
// render node (Mesa's drivers, NVIDIA's DRM module) or NVIDIA's own
// (/dev/nvidia0: containers given an NVIDIA GPU often have no /dev/dri).
// EF_GL_RENDERER_KIND (hardware, software), which classifies the
// renderer, overrides it (a GPU this does not know; tests).
#pragma once

#include <string>

namespace ef::gst {

// The first GPU device node under `dev`, "" where there is none.
std::string gpu_device_node(const std::string &dev = "/dev");

// Whether GL may run on hardware here: EF_GL_RENDERER_KIND (`forced`)
// where it says hardware or software, else whether a GPU device node is
// there; `why` says what decided.
bool gl_may_be_hardware(const char *forced, std::string &why, const std::string &dev = "/dev");

}  // namespace ef::gst
