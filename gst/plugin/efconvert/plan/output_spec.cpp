// SPDX-License-Identifier: LGPL-2.1-or-later
#include "output_spec.hpp"

#include <array>

namespace ef::gst {

namespace {

struct TypeName {
  TensorType type;
  const char *name;
  size_t bytes;
};

constexpr std::array<TypeName, 4> kTypes{{
    {TensorType::Uint8, "uint8", 1},
    {TensorType::Int8, "int8", 1},
    {TensorType::Float16, "float16", 2},
    {TensorType::Float32, "float32", 4},
}};

const TypeName &entry(TensorType type) {
  for (const TypeName &t : kTypes)
    if (t.type == type)
      return t;
  return kTypes.back();
}

}  // namespace

size_t TensorSpec::element_bytes() const {
  return entry(type).bytes;
}

size_t TensorSpec::size() const {
  return size_t(width) * size_t(height) * channels * element_bytes();
}

const char *tensor_type_name(TensorType type) {
  return entry(type).name;
}

std::optional<TensorType> tensor_type_from_name(std::string_view name) {
  for (const TypeName &t : kTypes)
    if (name == t.name)
      return t.type;
  return std::nullopt;
}

std::string describe(const TensorSpec &spec) {
  return std::string(tensor_type_name(spec.type)) +
         (spec.layout == TensorLayout::Nhwc ? " NHWC " : " NCHW ") + std::to_string(spec.channels) +
         "x" + std::to_string(spec.width) + "x" + std::to_string(spec.height);
}

std::string OutputSpec::describe() const {
  if (tensor_)
    return ef::gst::describe(*tensor_);
  return std::string(GST_VIDEO_INFO_NAME(&image_) ? GST_VIDEO_INFO_NAME(&image_) : "none") + " " +
         std::to_string(width()) + "x" + std::to_string(height());
}

}  // namespace ef::gst
