// SPDX-License-Identifier: LGPL-2.1-or-later
// One pipeline per element and backend, appsrc ! <element> ! appsink, and how
// to check what comes out of it: the lifecycle, soak and bad-input cases run
// every element through these.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

#include "content.hpp"
#include "stress.hpp"

namespace ef::stress {

struct Chain {
  std::string name;    // efupload, efconvert-cpu, efconvert-gl, efvkbridge
  std::string middle;  // between appsrc and appsink; the element is named "e"
  bool exact;          // output bytes equal the input's (else GstVideoConverter's)
  bool gl, vulkan;     // what the machine needs for it
  GstVideoInfo in;     // input format and size
  // The element's counters of input cache misses and hits.
  const char *misses, *hits;
};

// Every chain whose GL or Vulkan this machine has; the others are reported
// through skip_group.
std::vector<Chain> available_chains();

// The pipeline text for a chain; `element_options` go on the element.
std::string pipeline_text(const Chain &chain, const std::string &element_options = "");

// "" when `sample` is the right output for `input`; else why not. Arms a
// Vulkan frame's gate (the application's part), so the bridge lets go of it.
std::string check_output(const Chain &chain, GstSample *sample, GstBuffer *input);

// Pushes `input` (takes it) and checks the output that must follow.
std::string push_and_check(Pipeline &p, const Chain &chain, GstBuffer *input,
                           int timeout_ms = 3000);

}  // namespace ef::stress
