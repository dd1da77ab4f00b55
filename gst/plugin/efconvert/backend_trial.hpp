// SPDX-License-Identifier: LGPL-2.1-or-later
// backend=auto where only timing can tell: the first frame is converted by
// the GL backend, and what that shows (an upload, a readback) goes back to
// the decision first, which may settle without timing; otherwise the same
// frame is converted by both backends in turn, several times each, timed,
// and the faster one kept. The first frame leaves as the kept backend's
// conversion, as every later one does: one backend's frames all through a
// stream.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>

#include "backend.hpp"
#include "backend_choice.hpp"

namespace ef::gst {

std::unique_ptr<ConvertBackend> make_trial_backend(GstElement *element,
                                                   std::unique_ptr<ConvertBackend> cpu,
                                                   std::unique_ptr<ConvertBackend> gl,
                                                   const Machine &machine, std::string reason);

}  // namespace ef::gst
