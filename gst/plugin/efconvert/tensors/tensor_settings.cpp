// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_settings.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace ef::gst {

namespace {

// The largest magnitude a float16 holds.
constexpr double kHalfMax = 65504.0;

std::string check_values(const ChannelValues &v, const char *name, guint channels) {
  if (!v.numbers)
    return std::string(name) + " holds an item that is not a number";
  if (v.count != 1 && v.count != channels)
    return std::string(name) + " has " + std::to_string(v.count) +
           " values: give one for every channel, or one per channel (the tensor has " +
           std::to_string(channels) + ")";
  for (guint c = 0; c < v.count; ++c)
    if (!std::isfinite(v.values[c]))
      return std::string(name) + " holds a value that is not a finite number";
  return {};
}

// "0", "-0.5", "1e-05": what was set, as a message shows it.
std::string number(double v) {
  gchar text[G_ASCII_DTOSTR_BUF_SIZE];
  return g_ascii_formatd(text, sizeof text, "%g", v);
}

double value(const ChannelValues &v, guint c) {
  return v.values[v.count == 1 ? 0 : c];
}

}  // namespace

ChannelValues channel_values_of(const GValue *array) {
  ChannelValues v;
  v.count = array && GST_VALUE_HOLDS_ARRAY(array) ? gst_value_array_get_size(array) : 0;
  for (guint i = 0; i < v.count; ++i) {
    const GValue *item = gst_value_array_get_value(array, i);
    GValue d = G_VALUE_INIT;
    g_value_init(&d, G_TYPE_DOUBLE);
    const bool number = G_VALUE_TYPE(item) != G_TYPE_STRING &&
                        G_VALUE_TYPE(item) != G_TYPE_BOOLEAN &&
                        g_value_type_transformable(G_VALUE_TYPE(item), G_TYPE_DOUBLE) &&
                        g_value_transform(item, &d);
    v.numbers = v.numbers && number;
    if (number && i < v.values.size())
      v.values[i] = g_value_get_double(&d);
    g_value_unset(&d);
  }
  return v;
}

void set_channel_values(GValue *array, const ChannelValues &values) {
  for (guint i = 0; i < values.count && i < values.values.size(); ++i) {
    GValue item = G_VALUE_INIT;
    g_value_init(&item, G_TYPE_DOUBLE);
    g_value_set_double(&item, values.values[i]);
    gst_value_array_append_value(array, &item);
    g_value_unset(&item);
  }
}

std::string check_tensor_settings(const TensorSettings &t, const TensorSpec &spec) {
  const guint channels = spec.channels;
  for (const auto &[v, name] : {std::pair{&t.mean, "mean"}, std::pair{&t.stddev, "std"}})
    if (std::string why = check_values(*v, name, channels); !why.empty())
      return why;
  double largest = 0;  // the largest magnitude of (x - mean) / std
  for (guint c = 0; c < channels; ++c) {
    const double mean = value(t.mean, c), stddev = value(t.stddev, c);
    if (!(stddev > 0))
      return "std " + number(stddev) + " of channel " + std::to_string(c) +
             " is not above 0: values are divided by it";
    for (double x : {0.0, 255.0})
      largest = std::max(largest, std::abs((x - mean) / stddev));
  }
  switch (spec.type) {
    case TensorType::Float32:
      if (!(largest <= FLT_MAX))
        return "mean and std give values beyond float32";
      break;
    case TensorType::Float16:
      if (!(largest <= kHalfMax))
        return "mean and std give values up to " + number(largest) + ", beyond float16's 65504";
      break;
    case TensorType::Uint8:
    case TensorType::Int8: {
      if (!(std::isfinite(t.quant_scale) && t.quant_scale > 0))
        return "quant-scale " + number(t.quant_scale) + " is not a finite number above 0";
      const int low = spec.type == TensorType::Int8 ? -128 : 0;
      const int high = spec.type == TensorType::Int8 ? 127 : 255;
      if (t.zero_point < low || t.zero_point > high)
        return "quant-zero-point " + std::to_string(t.zero_point) + " lies outside " +
               tensor_type_name(spec.type) + " (" + std::to_string(low) + " to " +
               std::to_string(high) + ")";
      break;
    }
  }
  return {};
}

TensorNorm tensor_norm_of(const TensorSettings &t) {
  TensorNorm n;
  n.bgr = t.bgr;
  for (guint c = 0; c < 3; ++c) {
    n.mean[c] = value(t.mean, c);
    n.stddev[c] = value(t.stddev, c);
  }
  n.quant_scale = t.quant_scale;
  n.zero_point = t.zero_point;
  return n;
}

}  // namespace ef::gst
