// SPDX-License-Identifier: LGPL-2.1-or-later
// backend=auto where only timing can tell: the first frame is converted by
// the first entrant that learns from a frame (what its device copied: an
// upload, a readback), and what that shows goes back to the cost models
// first, which may settle without timing; otherwise the same frame is
// converted by each entrant the models still cannot tell apart in turn,
// several times each, timed, and the fastest one kept. The first frame
// leaves as the kept backend's conversion, as every later one does: one
// backend's frames all through a stream.
#pragma once

#include <gst/gst.h>

#include <memory>
#include <string>
#include <vector>

#include "backend_registry.hpp"

namespace ef::gst {

struct TrialEntrant {
  const BackendEntry *entry;
  std::unique_ptr<ConvertBackend> backend;
  Facts facts;  // what its entry observed
};

// Two entrants or more, in registry order.
std::unique_ptr<ConvertBackend> make_trial_backend(GstElement *element,
                                                   std::vector<TrialEntrant> entrants,
                                                   const Machine &machine, std::string reason);

}  // namespace ef::gst
