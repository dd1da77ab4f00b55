// SPDX-License-Identifier: LGPL-2.1-or-later
#include "tensor_description.hpp"

#include <dlpack/dlpack.h>

#include <cstdlib>
#include <cstring>

#include "gst/ef/gsteftensorview.h"

namespace ef::gst {

namespace {

struct TypeName {
  const char *name;
  uint8_t code, bits;
};
// NNStreamer's type names (tensor_typedef.h) that DLPack has a type for.
constexpr TypeName kTypes[] = {
    {"uint8", kDLUInt, 8},     {"int8", kDLInt, 8},       {"uint16", kDLUInt, 16},
    {"int16", kDLInt, 16},     {"uint32", kDLUInt, 32},   {"int32", kDLInt, 32},
    {"uint64", kDLUInt, 64},   {"int64", kDLInt, 64},     {"float16", kDLFloat, 16},
    {"float32", kDLFloat, 32}, {"float64", kDLFloat, 64},
};

DescriptionError caps_error(std::string message) {
  return DescriptionError{GST_EF_TENSOR_VIEW_ERROR_CAPS, std::move(message)};
}

// The string field `name`, else null (a missing field, or one of another
// type: unquoted dimensions are a GstFlagSet).
const char *string_field(const GstStructure *s, const char *name) {
  const GValue *v = gst_structure_get_value(s, name);
  return v && G_VALUE_HOLDS_STRING(v) ? g_value_get_string(v) : nullptr;
}

// "3:640:640:1" into the shape, outermost first.
std::variant<TensorDescription, DescriptionError> parse_dimensions(const char *text) {
  TensorDescription d;
  int64_t inner_first[kMaxTensorRank];
  const char *p = text;
  while (*p) {
    if (d.ndim == kMaxTensorRank)
      return caps_error(std::string("dimensions=") + text + ": more than 16 dimensions");
    char *end = nullptr;
    long long n = std::strtoll(p, &end, 10);
    if (end == p || n <= 0 || (*end && *end != ':'))
      return caps_error(std::string("dimensions=") + text +
                        ": not positive integers separated by ':'");
    inner_first[d.ndim++] = n;
    p = *end ? end + 1 : end;
  }
  if (d.ndim == 0)
    return caps_error("dimensions is empty");
  for (unsigned i = 0; i < d.ndim; ++i)
    d.shape[i] = inner_first[d.ndim - 1 - i];
  return d;
}

}  // namespace

void TensorDescription::strides(int64_t out[kMaxTensorRank]) const {
  int64_t step = 1;
  for (unsigned i = ndim; i-- > 0;) {
    out[i] = step;
    step *= shape[i];
  }
}

uint64_t TensorDescription::bytes() const {
  uint64_t n = bits / 8;
  for (unsigned i = 0; i < ndim; ++i)
    n *= uint64_t(shape[i]);
  return n;
}

DescriptionResult describe_caps(const GstCaps *caps) {
  if (gst_caps_is_empty(caps) || gst_caps_is_any(caps))
    return DescriptionError{GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR, "the caps are empty or ANY"};
  const GstStructure *s = gst_caps_get_structure(caps, 0);
  if (!gst_structure_has_name(s, "other/tensors"))
    return DescriptionError{
        GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR,
        std::string("caps of ") + gst_structure_get_name(s) + ", not other/tensors"};
  const char *format = string_field(s, "format");
  if (format && std::strcmp(format, "static") != 0)
    return caps_error(std::string("format=") + format +
                      ": only static tensors have their layout in the caps");
  gint count = 1;
  if (gst_structure_has_field(s, "num_tensors") &&
      (!gst_structure_get_int(s, "num_tensors", &count) || count != 1))
    return caps_error("num_tensors other than 1: one tensor a buffer only");
  const char *types = string_field(s, "types");
  const char *dimensions = string_field(s, "dimensions");
  if (!types || !dimensions)
    return caps_error("no types or dimensions string (unquoted dimensions are a flag set)");
  const TypeName *type = nullptr;
  for (const TypeName &t : kTypes)
    if (std::strcmp(t.name, types) == 0)
      type = &t;
  if (!type)
    return caps_error(std::string("types=") + types + ": not a type DLPack has");
  auto parsed = parse_dimensions(dimensions);
  if (auto *d = std::get_if<TensorDescription>(&parsed)) {
    d->code = type->code;
    d->bits = type->bits;
  }
  return parsed;
}

TensorDescription describe_meta(const GstEfTensorMeta *meta) {
  static constexpr TypeName kMetaTypes[] = {{"uint8", kDLUInt, 8},
                                            {"int8", kDLInt, 8},
                                            {"float16", kDLFloat, 16},
                                            {"float32", kDLFloat, 32}};
  TensorDescription d;
  d.ndim = 4;
  const int64_t c = meta->channels, h = meta->height, w = meta->width;
  const int64_t nhwc[] = {1, h, w, c}, nchw[] = {1, c, h, w};
  std::memcpy(d.shape, meta->layout == GST_EF_TENSOR_LAYOUT_NCHW ? nchw : nhwc, sizeof nhwc);
  const TypeName &t = kMetaTypes[meta->type];
  d.code = t.code;
  d.bits = t.bits;
  return d;
}

}  // namespace ef::gst
