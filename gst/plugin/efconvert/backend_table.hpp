// SPDX-License-Identifier: LGPL-2.1-or-later
// What each backend makes, as a table (glupload's idea of a method table):
// rows of input formats in some memories to outputs of one kind in some
// memories. Everything efconvert says about formats comes from these
// tables: its pad templates and caps are their union (convert_caps), and a
// negotiated conversion goes to a backend whose table has it
// (backend_select). A new output format is a row (or a name in one) in
// the backend's own table file (cpu/cpu_table.cpp, gl/gl_table.cpp); a new
// backend is a table and its code; see docs/ARCHITECTURE.md.
#pragma once

#include <gst/video/video.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend_choice.hpp"
#include "output_spec.hpp"

namespace ef::gst {

enum class OutputKind { Image, Tensor };

// A set of FrameMemory values.
using Memories = unsigned;
constexpr Memories memory_bit(FrameMemory m) {
  return 1u << unsigned(m);
}
inline constexpr Memories kPlainMemory =
    memory_bit(FrameMemory::System) | memory_bit(FrameMemory::DmaBuf);
inline constexpr Memories kAnyMemory = kPlainMemory | memory_bit(FrameMemory::Gl);
// The memories of frames in the order caps list them. Only the CUDA
// backend's table has CUDA memory (kAnyMemory leaves it out: the other
// backends cannot map it cheaply).
inline constexpr FrameMemory kMemories[] = {FrameMemory::System, FrameMemory::DmaBuf,
                                            FrameMemory::Gl, FrameMemory::Cuda};
// The memories of tensors in the order caps list them: plain memory, or GL
// buffer objects that stay on the GPU.
inline constexpr FrameMemory kTensorMemories[] = {FrameMemory::System, FrameMemory::GlBuffer};

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
  const char *backend;  // as ConvertBackend::name() says it
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
const char *memory_name(FrameMemory m);

// `computes`: whether the backend runs compute shaders here (rows marked
// `compute` count only then).
bool makes(const BackendTable &table, const Conversion &c, bool computes = true);

// The tables of the backends built in, the CPU's first. Each backend's own
// folder defines its table.
const BackendTable &cpu_table();
#ifdef EF_HAVE_GSTGL
const BackendTable &gl_table();
#endif
#ifdef EF_HAVE_GSTGL
// Listed in backend_tables() only where the CUDA backend is built
// (EF_HAVE_CUDA); defined wherever its plan is (tests check it).
const BackendTable &cuda_table();
#endif
const std::vector<const BackendTable *> &backend_tables();

// The backends whose tables have `c`, by name: "cpu, gl", or "none".
std::string backends_making(const Conversion &c);

// Unions over every table, in preference order (the CPU's rows first),
// each name once. `accepts(row)` picks the rows.
template <typename Pred>
std::vector<std::string> union_of(Pred accepts, bool outputs) {
  std::vector<std::string> names;
  for (const BackendTable *table : backend_tables())
    for (const Production &row : table->rows) {
      if (!accepts(row))
        continue;
      for (const std::string &name : outputs ? row.outputs : row.inputs)
        if (std::find(names.begin(), names.end(), name) == names.end())
          names.push_back(name);
    }
  return names;
}

// "{ NV12, I420 }": a caps list of `names`.
std::string caps_list(const std::vector<std::string> &names);

}  // namespace ef::gst
