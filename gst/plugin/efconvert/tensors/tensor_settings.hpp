// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's tensor properties as settings (mean, std, quant-scale,
// quant-zero-point, channel-order, tensor-id): copied with the others once
// per frame, checked against the negotiated tensor where they are used (at
// negotiation and each frame), so a bad value is an error on the bus and
// never a NaN or a wrong tensor.
#pragma once

#include <gst/gst.h>

#include <array>
#include <string>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

// mean or std: one value for every channel, or one per channel in the
// tensor's channel order.
struct ChannelValues {
  std::array<double, 3> values{};
  guint count = 1;      // as given: 1 or the tensor's channels to be good
  bool numbers = true;  // every item was a number
  bool operator==(const ChannelValues &) const = default;
};

struct TensorSettings {
  ChannelValues mean{{0, 0, 0}, 1};
  ChannelValues stddev{{1, 1, 1}, 1};
  double quant_scale = 1.0;
  gint zero_point = 0;
  bool bgr = false;
  GQuark id = 0;  // tensor-id, as a quark: copying it allocates nothing
};

// A GstValueArray property value as channel values, and back.
ChannelValues channel_values_of(const GValue *array);
void set_channel_values(GValue *array, const ChannelValues &values);

// "" when `t` gives a tensor of `spec` finite values in its type, else
// what is wrong ("std 0 of channel 1 divides by zero").
std::string check_tensor_settings(const TensorSettings &t, const TensorSpec &spec);

// The values of the checked settings, per channel.
TensorNorm tensor_norm_of(const TensorSettings &t);

}  // namespace ef::gst
