// SPDX-License-Identifier: LGPL-2.1-or-later
// What efconvert makes, in one description every part reads: an image (a
// GstVideoInfo: format, size, planes) or a tensor (element type, layout,
// channels, size). Made from the negotiated caps in set_caps; the backends,
// the output pool, the frame's plan and the metas take it from there.
#pragma once

#include <gst/video/video.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ef::gst {

// Element types, by NNStreamer's names ("uint8", "int8", "float16",
// "float32"): tensor_type_name().
enum class TensorType { Uint8, Int8, Float16, Float32 };

// Where the channels lie: interleaved per pixel (NHWC, NNStreamer's
// "C:W:H:1") or one plane each (NCHW, "W:H:C:1").
enum class TensorLayout { Nhwc, Nchw };

struct TensorSpec {
  TensorType type = TensorType::Float32;
  TensorLayout layout = TensorLayout::Nhwc;
  guint channels = 3;  // 3 (colour) or 1 (luma)
  gint width = 0, height = 0;
  gint fps_n = 0, fps_d = 1;

  size_t element_bytes() const;
  // Bytes of one tensor: a buffer is exactly this, in one memory.
  size_t size() const;
  bool operator==(const TensorSpec &) const = default;
};

const char *tensor_type_name(TensorType type);
std::optional<TensorType> tensor_type_from_name(std::string_view name);
// "float32 NCHW 3x640x640" for messages.
std::string describe(const TensorSpec &spec);

class OutputSpec {
 public:
  OutputSpec() { gst_video_info_init(&image_); }
  explicit OutputSpec(const GstVideoInfo &image) : image_(image) {}
  explicit OutputSpec(const TensorSpec &tensor) : tensor_(tensor) { gst_video_info_init(&image_); }

  bool is_tensor() const { return tensor_.has_value(); }
  // nullptr where the output is the other kind.
  const GstVideoInfo *image() const { return tensor_ ? nullptr : &image_; }
  const TensorSpec *tensor() const { return tensor_ ? &*tensor_ : nullptr; }

  gint width() const { return tensor_ ? tensor_->width : GST_VIDEO_INFO_WIDTH(&image_); }
  gint height() const { return tensor_ ? tensor_->height : GST_VIDEO_INFO_HEIGHT(&image_); }
  // "RGB 640x640", "float32 NCHW 3x640x640".
  std::string describe() const;

 private:
  GstVideoInfo image_;
  std::optional<TensorSpec> tensor_;
};

}  // namespace ef::gst
