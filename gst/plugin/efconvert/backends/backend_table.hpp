// SPDX-License-Identifier: LGPL-2.1-or-later
// What a backend makes, as a table (glupload's idea of a method table):
// rows of input formats in some memories to outputs of one kind in some
// memories. Everything efconvert says about formats comes from the tables
// of its registry's entries (backend_registry.hpp): its pad templates and
// caps are their union (convert_caps), and a negotiated conversion goes to
// a backend whose table has it (backend_select). A new output format is a
// row (or a name in one) in the backend's own table file (cpu/cpu_table.cpp,
// gl/gl_table.cpp); see docs/ARCHITECTURE.md, "Where a change goes".
#pragma once

#include <gst/video/video.h>

#include <string>
#include <vector>

#include "memory_kinds.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

enum class OutputKind { Image, Tensor };

struct Production {
  std::vector<std::string> inputs;  // video formats, by preference
  Memories in = kAnyMemory;
  OutputKind kind = OutputKind::Image;
  // Video formats (images) or tensor element types (tensor_type_name), by
  // preference.
  std::vector<std::string> outputs;
  Memories out = kPlainMemory;
  // Made by a compute shader only (GL 4.3, GLES 3.1): on a context without
  // them, or with the fragment stage forced, the backend does not make it.
  bool compute = false;
};

struct BackendTable {
  std::vector<Production> rows;
};

// One negotiated conversion as the tables see it.
struct Conversion {
  std::string input;  // video format
  FrameMemory in_memory = FrameMemory::System;
  OutputKind kind = OutputKind::Image;
  std::string output;  // video format or tensor element type
  FrameMemory out_memory = FrameMemory::System;
};

Conversion conversion_of(const GstVideoInfo &in, FrameMemory in_memory, const OutputSpec &out,
                         FrameMemory out_memory);
// "NV12 in system memory to float32 tensors in system memory".
std::string describe(const Conversion &c);

// `computes`: whether the backend runs compute shaders here (rows marked
// `compute` count only then).
bool makes(const BackendTable &table, const Conversion &c, bool computes = true);

// "{ NV12, I420 }": a caps list of `names`.
std::string caps_list(const std::vector<std::string> &names);

}  // namespace ef::gst
