// SPDX-License-Identifier: LGPL-2.1-or-later
#include "settings_check.hpp"

#include <utility>

#include "efconvert/plan/convert_params.hpp"

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
  // point checked against every type (its range is the tensor type's).
  if (tensor.zero_point < -128 || tensor.zero_point > 255)
    return "quant-zero-point " + std::to_string(tensor.zero_point) +
           " lies outside every tensor type (int8 -128 to 127, uint8 0 to 255)";
  TensorSettings any = tensor;
  any.zero_point = 0;
  TensorSpec spec;
  spec.type = TensorType::Uint8;
  spec.channels = 3;
  return check_tensor_settings(any, spec);
}

std::string setting_takes(std::string_view property) {
  static constexpr std::pair<std::string_view, const char *> kTakes[] = {
      {"crop",
       "<x, y, width, height>: four integers, not negative, a rectangle with pixels inside the "
       "frame, or <0, 0, 0, 0> for the whole frame"},
      {"video-direction", "identity, 90r, 180, 90l, horiz, vert, ul-lr, ur-ll or auto"},
      {"mean", "one finite number, or one per channel of the tensor (3, or 1 for luma)"},
      {"std", "one finite number above 0, or one per channel of the tensor (3, or 1 for luma)"},
      {"quant-scale", "a finite number above 0"},
      {"quant-zero-point", "an integer in the tensor's type: int8 -128 to 127, uint8 0 to 255"},
      {"attach-tensor",
       "other/tensors caps efconvert makes (format=static, num_tensors=1, types uint8, int8, "
       "float16 or float32, dimensions C:W:H:1 or W:H:C:1), or none"},
  };
  for (const auto &[name, takes] : kTakes)
    if (name == property)
      return takes;
  return "the values its description gives";
}

}  // namespace ef::gst
