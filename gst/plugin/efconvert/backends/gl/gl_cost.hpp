// SPDX-License-Identifier: LGPL-2.1-or-later
// The GL backend's cost model for backend=auto (backend_choice.hpp): what
// a frame costs on this renderer, given what the GPU takes without a copy.
// Pure, as the choice is.
#pragma once

#include <string>

#include "efconvert/backends/backend_choice.hpp"

namespace ef::gst {

Cost gl_cost(const Machine &machine, const Facts &gl);

// The renderer's kind; `forced` ("hardware" or "software", else ignored)
// overrides the name, for a renderer the list does not know.
GpuKind gl_kind_of(const std::string &renderer, const char *forced);

}  // namespace ef::gst
