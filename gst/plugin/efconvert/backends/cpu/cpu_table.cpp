// SPDX-License-Identifier: LGPL-2.1-or-later
// What the CPU backend makes (backend_table.hpp): every format its
// converter reads, in any memory (GL memory is mapped, which downloads it),
// to every format its writer makes, in plain memory, and to tensors of
// every element type its tensor writer makes.
#include "cpu_converter.hpp"
#include "efconvert/backends/backend_table.hpp"

namespace ef::gst {

namespace {

std::vector<std::string> names_of(const std::vector<GstVideoFormat> &formats) {
  std::vector<std::string> names;
  for (GstVideoFormat f : formats)
    names.emplace_back(gst_video_format_to_string(f));
  return names;
}

}  // namespace

const BackendTable &cpu_table() {
  static const BackendTable table{
      {
          {names_of(cpu_input_formats()), kAnyMemory, OutputKind::Image,
           names_of(cpu_output_formats()), kPlainMemory},
          // Tensors by the same pass (cpu_tensor.hpp), in their own memory.
          {names_of(cpu_input_formats()),
           kAnyMemory,
           OutputKind::Tensor,
           {"float32", "float16", "uint8", "int8"},
           memory_bit(FrameMemory::System)},
      },
  };
  return table;
}

}  // namespace ef::gst
