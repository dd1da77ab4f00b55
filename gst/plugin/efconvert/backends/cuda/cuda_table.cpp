// SPDX-License-Identifier: LGPL-2.1-or-later
// What the CUDA backend makes (backend_table.hpp): 8-bit 4:2:0 frames in
// CUDA memory (NVDEC's decoders' output) to the RGB formats pass_plan lays
// out and to tensors of every type, read back into plain memory, and the
// RGBA family into GL textures. cuda_plan's reads() and writes() say the
// same; tests/gst/test_backend_tables.cpp checks both ways.
#include "efconvert/backends/backend_table.hpp"

namespace ef::gst {

const BackendTable &cuda_table() {
  static const BackendTable table{
      {
          {{"NV12", "I420"},
           memory_bit(FrameMemory::Cuda),
           OutputKind::Image,
           {"RGB", "BGR", "RGBA", "BGRA", "RGBx", "BGRx", "RGBP", "BGRP", "GRAY8"},
           kPlainMemory},
          // The kernel writes the tensor's values itself (no image between).
          {{"NV12", "I420"},
           memory_bit(FrameMemory::Cuda),
           OutputKind::Tensor,
           {"float32", "float16", "uint8", "int8"},
           kPlainMemory},
          // Into the output's GL texture (CUDA-GL interop): a texel a pixel.
          {{"NV12", "I420"},
           memory_bit(FrameMemory::Cuda),
           OutputKind::Image,
           {"RGBA", "BGRA", "RGBx", "BGRx"},
           memory_bit(FrameMemory::Gl)},
      },
  };
  return table;
}

}  // namespace ef::gst
