// SPDX-License-Identifier: LGPL-2.1-or-later
// backend=auto where only timing can tell: the first frames are converted by
// the GL backend, the next by the CPU backend, each frame once and into its
// own output (no output is dropped or converted twice), then the faster one
// converts every later frame. What the GL frames show (an upload, a readback)
// goes back to the decision first, which may settle without timing.
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
