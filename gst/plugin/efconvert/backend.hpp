// SPDX-License-Identifier: LGPL-2.1-or-later
// A conversion backend of efconvert: made for one pair of caps, used for
// every frame until the caps change.
#pragma once

#include <gst/video/video.h>

#include <memory>

#include "convert_params.hpp"
#include "ef/result.hpp"

namespace ef::gst {

class ConvertBackend {
 public:
  virtual ~ConvertBackend() = default;
  virtual const char *name() const = 0;
  // Converts `in` (validated against in_info) into `out`.
  virtual Result<void> convert(GstBuffer *in, GstBuffer *out, const ConvertParams &params) = 0;
};

std::unique_ptr<ConvertBackend> make_cpu_backend(const GstVideoInfo &in, const GstVideoInfo &out);

}  // namespace ef::gst
