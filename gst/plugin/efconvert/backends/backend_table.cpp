// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_table.hpp"

#include <algorithm>

namespace ef::gst {

Conversion conversion_of(const GstVideoInfo &in, FrameMemory in_memory, const OutputSpec &out,
                         FrameMemory out_memory) {
  Conversion c;
  c.input = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&in));
  c.in_memory = in_memory;
  c.out_memory = out_memory;
  if (const TensorSpec *tensor = out.tensor()) {
    c.kind = OutputKind::Tensor;
    c.output = tensor_type_name(tensor->type);
  } else {
    c.output = gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(out.image()));
  }
  return c;
}

std::string describe(const Conversion &c) {
  const std::string out =
      c.kind == OutputKind::Tensor ? c.output + " tensors" : c.output + " frames";
  return c.input + " in " + memory_kind(c.in_memory).name + " to " + out + " in " +
         memory_kind(c.out_memory).name;
}

bool makes(const BackendTable &table, const Conversion &c, bool computes) {
  auto has = [](const std::vector<std::string> &names, const std::string &name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const Production &row : table.rows)
    if (row.kind == c.kind && (computes || !row.compute) && (row.in & memory_bit(c.in_memory)) &&
        (row.out & memory_bit(c.out_memory)) && has(row.inputs, c.input) &&
        has(row.outputs, c.output))
      return true;
  return false;
}

std::string caps_list(const std::vector<std::string> &names) {
  std::string list = "{ ";
  for (size_t i = 0; i < names.size(); ++i)
    list += (i ? ", " : "") + names[i];
  return list + " }";
}

}  // namespace ef::gst
