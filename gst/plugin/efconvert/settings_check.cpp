// SPDX-License-Identifier: LGPL-2.1-or-later
#include "settings_check.hpp"

#include "convert_params.hpp"

namespace ef::gst {

std::string crop_problem(const GstVideoRectangle &crop, const StreamShape &shape) {
  const std::string text = "<" + std::to_string(crop.x) + ", " + std::to_string(crop.y) + ", " +
                           std::to_string(crop.w) + ", " + std::to_string(crop.h) + ">";
  if (crop.x < 0 || crop.y < 0 || crop.w < 0 || crop.h < 0)
    return "crop " + text + " holds a negative value";
  if (crop.w == 0 && crop.h == 0)
    return "";  // the whole frame
  if (crop.w == 0 || crop.h == 0)
    return "crop " + text + " has no pixels (<0, 0, 0, 0> is the whole frame)";
  if (gint64(crop.x) + crop.w > G_MAXINT || gint64(crop.y) + crop.h > G_MAXINT)
    return "crop " + text + " lies beyond any frame";
  if (shape.width <= 0 || shape.height <= 0)
    return "";
  // The plan's own check, on the negotiated frame.
  auto plan = plan_conversion(guint(shape.width), guint(shape.height), crop, 1, 1, false,
                              GST_VIDEO_ORIENTATION_IDENTITY);
  return plan ? "" : plan.error().message;
}

std::string direction_problem(GstVideoOrientationMethod direction) {
  if (direction != GST_VIDEO_ORIENTATION_CUSTOM)
    return "";
  return "custom names no turn or flip efconvert can apply (it applies identity, 90r, 180, 90l, "
         "horiz, vert, ul-lr, ur-ll, and auto from the stream's orientation tag)";
}

std::string tensor_problem(const TensorSettings &tensor, const StreamShape &shape) {
  if (shape.tensor)
    return check_tensor_settings(tensor, *shape.tensor);
  // Without a tensor yet, what no tensor could take: checked as for a
  // three-channel uint8 tensor, which reads every setting, with the zero
  // point left out (its range is the tensor type's).
  TensorSettings any = tensor;
  any.zero_point = 0;
  TensorSpec spec;
  spec.type = TensorType::Uint8;
  spec.channels = 3;
  return check_tensor_settings(any, spec);
}

}  // namespace ef::gst
