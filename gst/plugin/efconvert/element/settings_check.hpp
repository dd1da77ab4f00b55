// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's settings checked where they are set, never found bad on a
// frame: a value no stream could use (a crop without pixels,
// video-direction=custom, a std of 0) is refused when set, and so is one the
// negotiated stream cannot use (a crop outside its frame, three means for a
// one-channel tensor); set_caps checks the settings against new caps. A
// setting is never a "bad frame" counted by max-errors.
#pragma once

#include <gst/video/video.h>

#include <optional>
#include <string>
#include <string_view>

#include "efconvert/plan/output_spec.hpp"
#include "efconvert/tensors/tensor_settings.hpp"

namespace ef::gst {

// What set_caps negotiated, for the settings to be checked against.
struct StreamShape {
  gint width = 0, height = 0;        // the input frame; 0: no caps yet
  std::optional<TensorSpec> tensor;  // the tensor made, where one is
};

// "" where the setting suits frames of `shape` (or, without caps, some
// frame), else what is wrong with it.
std::string crop_problem(const GstVideoRectangle &crop, const StreamShape &shape);
std::string direction_problem(GstVideoOrientationMethod direction);
std::string tensor_problem(const TensorSettings &tensor, const StreamShape &shape);

// What the setting `property` takes, for the message refusing a value of
// it: "a finite number above 0".
std::string setting_takes(std::string_view property);

}  // namespace ef::gst
