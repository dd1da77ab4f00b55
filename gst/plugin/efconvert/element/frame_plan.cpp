// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_plan.hpp"

#include <cstdint>
#include <string>

namespace ef::gst {

namespace {

// The source rectangle of this frame: its crop meta, then the crop property
// inside it.
GstVideoRectangle frame_crop(GstBuffer *in, const GstVideoInfo &info, const Settings &settings) {
  GstVideoRectangle crop{0, 0, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info)};
  if (GstVideoCropMeta *meta = gst_buffer_get_video_crop_meta(in))
    crop = {gint(meta->x), gint(meta->y), gint(meta->width), gint(meta->height)};
  if (settings.crop.w != 0 || settings.crop.h != 0)
    crop = {crop.x + settings.crop.x, crop.y + settings.crop.y, settings.crop.w, settings.crop.h};
  return crop;
}

}  // namespace

GstVideoOrientationMethod effective_direction(const Settings &settings) {
  return settings.direction == GST_VIDEO_ORIENTATION_AUTO ? settings.tag_direction
                                                          : settings.direction;
}

Result<ConvertParams> plan_frame(const Stream &s, GstBuffer *in, const Settings &settings) {
  auto plan = plan_conversion(GST_VIDEO_INFO_WIDTH(&s.in_info), GST_VIDEO_INFO_HEIGHT(&s.in_info),
                              frame_crop(in, s.in_info, settings), s.out.width(), s.out.height(),
                              settings.letterbox, effective_direction(settings));
  if (!plan)
    return Error{plan.error().code, "Invalid crop: " + plan.error().message};
  plan->method = settings.method == GST_EF_CONVERT_METHOD_NEAREST ? ScaleMethod::Nearest
                                                                  : ScaleMethod::Bilinear;
  const guint32 c = settings.fill_color;
  plan->fill = {uint8_t(c >> 16), uint8_t(c >> 8), uint8_t(c), uint8_t(c >> 24)};
  plan->matrix = s.in_info.colorimetry.matrix;
  plan->range = s.in_info.colorimetry.range;
  plan->chroma_site = s.in_info.chroma_site;
  plan->keep_borders = settings.keep_borders;
  if (const TensorSpec *tensor = s.out.tensor()) {
    // Properties may change while playing: checked each frame, never used bad.
    if (std::string why = check_tensor_settings(settings.tensor, *tensor); !why.empty())
      return Error{EINVAL, "Invalid tensor settings: " + why};
    plan->norm = tensor_norm_of(settings.tensor);
  }
  return plan;
}

}  // namespace ef::gst
