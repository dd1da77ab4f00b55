// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_table.hpp"

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

const char *memory_name(FrameMemory m) {
  switch (m) {
    case FrameMemory::DmaBuf:
      return "dma-buf memory";
    case FrameMemory::Gl:
      return "GL memory";
    case FrameMemory::GlBuffer:
      return "GL buffer memory";
    case FrameMemory::Cuda:
      return "CUDA memory";
    default:
      return "system memory";
  }
}

std::string describe(const Conversion &c) {
  const std::string out =
      c.kind == OutputKind::Tensor ? c.output + " tensors" : c.output + " frames";
  return c.input + " in " + memory_name(c.in_memory) + " to " + out + " in " +
         memory_name(c.out_memory);
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

const std::vector<const BackendTable *> &backend_tables() {
  static const std::vector<const BackendTable *> tables = {
      &cpu_table(),
#ifdef EF_HAVE_GSTGL
      &gl_table(),
#endif
#ifdef EF_HAVE_CUDA
      &cuda_table(),
#endif
  };
  return tables;
}

std::string backends_making(const Conversion &c) {
  std::string names;
  for (const BackendTable *table : backend_tables())
    if (makes(*table, c))
      names += (names.empty() ? "" : ", ") + std::string(table->backend);
  return names.empty() ? "none" : names;
}

std::string caps_list(const std::vector<std::string> &names) {
  std::string list = "{ ";
  for (size_t i = 0; i < names.size(); ++i)
    list += (i ? ", " : "") + names[i];
  return list + " }";
}

}  // namespace ef::gst
