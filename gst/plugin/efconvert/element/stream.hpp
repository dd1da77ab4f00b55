// SPDX-License-Identifier: LGPL-2.1-or-later
// What set_caps negotiated, whole: made there from the caps and the
// settings, dropped by stop (gst-plugins-rs' Option<State>). The element
// keeps it in its state (convert_state.hpp), where the lock beside it says
// who may read it.
#pragma once

#include <gst/video/video.h>

#include <memory>
#include <string>

#include "efconvert/backends/backend.hpp"
#include "common/gst_ptr.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

struct Stream {
  GstVideoInfo in_info{};
  OutputSpec out;  // what the backend makes: an image or a tensor
  std::unique_ptr<ConvertBackend> backend;
  ObjectPtr<GstBufferPool> attach_pool;  // the tensors attach-tensor attaches
  std::string reason;                    // why this backend, unless it says itself
};

}  // namespace ef::gst
