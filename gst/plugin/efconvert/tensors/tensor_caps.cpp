// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_caps.hpp"

#include <cerrno>
#include <cstdlib>

namespace ef::gst {

namespace {

// NNStreamer allows up to 16 dimensions.
constexpr size_t kMaxRank = 16;

// "3:640:640:1" as numbers; empty when not a list of positive integers.
std::vector<guint64> parse_dimensions(const char *text) {
  std::vector<guint64> dims;
  std::string item;
  for (const char *p = text;; ++p) {
    if (*p == ':' || *p == '\0') {
      if (item.empty() || item.size() > 9 || dims.size() == kMaxRank)
        return {};
      dims.push_back(g_ascii_strtoull(item.c_str(), nullptr, 10));
      if (dims.back() == 0)
        return {};
      item.clear();
      if (*p == '\0')
        break;
      continue;
    }
    if (!g_ascii_isdigit(*p))
      return {};
    item += *p;
  }
  return dims;
}

bool is_channels(guint64 d) {
  return d == 1 || d == 3;
}

Result<void> read_dimensions(const char *text, gint max_side, TensorSpec &spec) {
  const std::string said = std::string("dimensions ") + (text ? text : "(none)");
  std::vector<guint64> d = parse_dimensions(text ? text : "");
  if (d.empty())
    return Error{EINVAL, said + ": not a list of up to 16 positive integers, innermost first"};
  while (d.size() < 4)
    d.push_back(1);
  for (size_t i = 3; i < d.size(); ++i)
    if (d[i] != 1)
      return Error{EINVAL, said + ": efconvert makes one image a tensor (a batch of 1)"};
  guint64 w, h;
  if (is_channels(d[0])) {
    spec.layout = TensorLayout::Nhwc;
    spec.channels = guint(d[0]), w = d[1], h = d[2];
  } else if (is_channels(d[2])) {
    spec.layout = TensorLayout::Nchw;
    w = d[0], h = d[1], spec.channels = guint(d[2]);
  } else {
    return Error{EINVAL, said + ": neither NHWC (C:W:H:1) nor NCHW (W:H:C:1) with 3 or 1 channels"};
  }
  if (w > guint64(max_side) || h > guint64(max_side))
    return Error{EINVAL, said + ": a side exceeds the CPU path's maximum frame side " +
                             std::to_string(max_side)};
  spec.width = gint(w);
  spec.height = gint(h);
  return {};
}

}  // namespace

bool is_tensor_structure(const GstStructure *s) {
  return gst_structure_has_name(s, kTensorsMedia);
}

GstStructure *tensor_structure(const std::string &types, const GstStructure *like) {
  GstStructure *s = gst_structure_from_string(
      (std::string(kTensorsMedia) + ", format=(string)static, num_tensors=(int)1, types=(string)" +
       types)
          .c_str(),
      nullptr);
  const GValue *rate = like ? gst_structure_get_value(like, "framerate") : nullptr;
  if (s && rate)
    gst_structure_set_value(s, "framerate", rate);
  return s;
}

std::string dimensions_of(const TensorSpec &spec) {
  const std::string c = std::to_string(spec.channels);
  const std::string w = std::to_string(spec.width), h = std::to_string(spec.height);
  return spec.layout == TensorLayout::Nhwc ? c + ":" + w + ":" + h + ":1"
                                           : w + ":" + h + ":" + c + ":1";
}

std::string dimensions_type_problem(const GstStructure *s) {
  const GValue *dims = gst_structure_get_value(s, "dimensions");
  if (!dims || G_VALUE_HOLDS_STRING(dims) || GST_VALUE_HOLDS_LIST(dims))
    return "";
  gchar *text = gst_value_serialize(dims);
  const std::string problem =
      std::string("dimensions=(") + G_VALUE_TYPE_NAME(dims) + ")" + (text ? text : "?") +
      " is no string" +
      (GST_VALUE_HOLDS_FLAG_SET(dims)
           ? ": GStreamer reads two numbers a:b written without (string) as a flagset "
             "(hexadecimal flags:mask, so the text as written is lost)"
           : "") +
      "; efconvert takes up to 16 positive integers as a string, innermost first: C:W:H:1 "
      "(NHWC) or W:H:C:1 (NCHW), e.g. dimensions=3:640:640:1 (write all four: 3:32:1:1, not "
      "3:32)";
  g_free(text);
  return problem;
}

std::string layout_text(const TensorSpec &spec) {
  const std::string c = std::to_string(spec.channels);
  const std::string w = std::to_string(spec.width), h = std::to_string(spec.height);
  const bool nhwc = spec.layout == TensorLayout::Nhwc;
  return std::string(nhwc ? "NHWC " : "NCHW ") + tensor_type_name(spec.type) + " tensor (1," +
         (nhwc ? h + "," + w + "," + c : c + "," + h + "," + w) +
         ") = dimensions=" + dimensions_of(spec);
}

Result<TensorSpec> parse_tensor_caps(GstCaps *caps, gint max_side) {
  if (!caps || gst_caps_is_empty(caps) || !is_tensor_structure(gst_caps_get_structure(caps, 0)))
    return Error{EINVAL, "not other/tensors caps"};
  const GstStructure *s = gst_caps_get_structure(caps, 0);
  TensorSpec spec;
  const char *format = gst_structure_get_string(s, "format");
  if (gst_structure_has_field(s, "format") && g_strcmp0(format, "static") != 0)
    return Error{EINVAL, "tensor format " + std::string(format ? format : "(not one string)") +
                             ": efconvert makes static tensors"};
  gint n = 1;
  if (gst_structure_has_field(s, "num_tensors") &&
      (!gst_structure_get_int(s, "num_tensors", &n) || n != 1))
    return Error{EINVAL, "num_tensors " + std::to_string(n) + ": efconvert makes one tensor"};
  const char *types = gst_structure_get_string(s, "types");
  const auto type = types ? tensor_type_from_name(types) : std::nullopt;
  if (!type)
    return Error{EINVAL, "tensor types " + std::string(types ? types : "(none)") +
                             ": efconvert makes one of uint8, int8, float16, float32"};
  spec.type = *type;
  if (const std::string problem = dimensions_type_problem(s); !problem.empty())
    return Error{EINVAL, problem};
  if (auto dims = read_dimensions(gst_structure_get_string(s, "dimensions"), max_side, spec); !dims)
    return dims.error();
  if (!gst_structure_get_fraction(s, "framerate", &spec.fps_n, &spec.fps_d))
    spec.fps_n = 0, spec.fps_d = 1;
  return spec;
}

void fixate_tensor_structure(GstStructure *out, gint w, gint h, const GValue *rate) {
  if (gst_structure_has_field(out, "format"))
    gst_structure_fixate_field_string(out, "format", "static");
  if (gst_structure_has_field(out, "num_tensors"))
    gst_structure_fixate_field_nearest_int(out, "num_tensors", 1);
  for (const char *field : {"types", "dimensions"})
    if (gst_structure_has_field(out, field))
      gst_structure_fixate_field(out, field);
  if (!gst_structure_has_field(out, "dimensions") && w > 0 && h > 0) {
    TensorSpec spec;
    spec.width = w;
    spec.height = h;
    gst_structure_set(out, "dimensions", G_TYPE_STRING, dimensions_of(spec).c_str(), nullptr);
  }
  if (rate && GST_VALUE_HOLDS_FRACTION(rate) && gst_structure_has_field(out, "framerate"))
    gst_structure_fixate_field_nearest_fraction(out, "framerate",
                                                gst_value_get_fraction_numerator(rate),
                                                gst_value_get_fraction_denominator(rate));
}

}  // namespace ef::gst
