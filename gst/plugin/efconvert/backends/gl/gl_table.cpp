// SPDX-License-Identifier: LGPL-2.1-or-later
// What the GL backend makes (backend_table.hpp): the formats its shader
// reads (gl_layout's source_layout) in any memory, to the formats it writes
// (output_layout) in plain memory, and those of one RGBA8 texel a pixel as
// GL textures; and tensors of every element type the compute pass writes
// (gl_shaders.hpp kTensorOutput), in plain memory or as GL buffers that
// stay on the GPU, where the context computes.
// tests/gst/test_backend_tables.cpp checks these lists against gl_layout,
// both ways.
#include "efconvert/backends/backend_table.hpp"

namespace ef::gst {

const BackendTable &gl_table() {
  static const std::vector<std::string> inputs = {
      "NV12", "I420", "YUY2", "UYVY", "RGBA", "BGRA", "RGBx", "BGRx", "RGB", "BGR", "GRAY8",
      // Deep sources as 16-bit textures (gl_layout.hpp).
      "P010_10LE", "I420_10LE", "NV12_10LE40", "P012_LE", "P016_LE", "I420_12LE", "I422_10LE",
      "I422_12LE", "Y444_10LE", "Y444_12LE", "Y444_16LE"};
  static const BackendTable table{
      {
          {inputs,
           kAnyMemory,
           OutputKind::Image,
           {"RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "GRAY8", "RGBP", "BGRP"},
           kPlainMemory},
          {inputs,
           kAnyMemory,
           OutputKind::Image,
           {"RGBA", "BGRA", "RGBx", "BGRx"},
           memory_bit(FrameMemory::Gl)},
          {inputs,
           kAnyMemory,
           OutputKind::Tensor,
           {"float32", "float16", "uint8", "int8"},
           memory_bit(FrameMemory::System) | memory_bit(FrameMemory::GlBuffer),
           true},
      },
  };
  return table;
}

}  // namespace ef::gst
