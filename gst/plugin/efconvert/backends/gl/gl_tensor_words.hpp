// SPDX-License-Identifier: LGPL-2.1-or-later
// How the GL pass lays a tensor out in the 32-bit words of a buffer object
// (gl_shaders.hpp, kTensorOutput). Each invocation converts 4 / element-size
// consecutive pixels (in row order, across rows: 1 float32, 2 float16, 4
// int8 or uint8), so that it stores whole words and no two invocations share
// one: in NHWC (and one channel) the words of those pixels' values, in NCHW
// one word in each channel's plane. Where a plane of the tensor does not
// start on a word, or the last invocation's words would run past the
// tensor (its pixels no multiple of that count), the pass writes a padded
// layout, each plane on its own words, and copies (`pieces`) bring it to
// the tensor's. Plain arithmetic, no GL.
#pragma once

#include <glib.h>

#include <array>

#include "efconvert/plan/output_spec.hpp"

namespace ef::gst::gl {

struct TensorWords {
  // Bytes [from, from + length) of the pass's buffer are bytes [to, ...)
  // of the tensor.
  struct Piece {
    gsize from = 0, to = 0, length = 0;
  };

  guint pixels = 1;       // pixels an invocation converts
  guint planes = 1;       // word planes: 3 for NCHW colour, else 1
  guint invocations = 0;  // of the whole tensor
  gsize plane_words = 0;  // words from one plane to the next in the pass's buffer
  gsize bytes = 0;        // of the pass's buffer
  // The pass's buffer is the tensor itself (no padding, nothing past it):
  // the pass may write straight into the tensor's memory.
  bool exact = false;
  std::array<Piece, 3> pieces{};
  guint n_pieces = 0;
  // Work groups of kTensorGroup invocations along x and y: invocation
  // i = y * (groups[0] * width) + x. {0, 0} where no dispatch within the
  // limit holds them all.
  std::array<guint, 2> groups{};
};

// Work groups one dispatch may have along x and y
// (GL_MAX_COMPUTE_WORK_GROUP_COUNT): at least 65535 each in GL 4.3 and
// GLES 3.1, which a float32 tensor of 16384 x 16384 in rows of 64 groups
// exceeds along y.
struct GroupLimit {
  guint x = 65535, y = 65535;
};

// The compute shader's work group (gl_shaders.hpp): 16 x 4.
inline constexpr guint kTensorGroupWidth = 16, kTensorGroupHeight = 4;

TensorWords tensor_words(const TensorSpec &spec, const GroupLimit &limit = {});

}  // namespace ef::gst::gl
