// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_tensor_words.hpp"

#include <algorithm>

namespace ef::gst::gl {

namespace {

// Invocations of one dispatch row: enough for any tensor, few enough that
// a small one is not spread over idle groups.
constexpr guint kMaxRowGroups = 64;

}  // namespace

TensorWords tensor_words(const TensorSpec &spec, const GroupLimit &limit) {
  TensorWords w;
  const gsize bytes = spec.element_bytes();
  const gsize pixels = gsize(spec.width) * gsize(spec.height);
  w.pixels = guint(4 / bytes);
  w.invocations = guint((pixels + w.pixels - 1) / w.pixels);
  const bool planar = spec.layout == TensorLayout::Nchw && spec.channels == 3;
  w.planes = planar ? 3 : 1;
  // An invocation's words: one per plane (NCHW), else its values' C words
  // (pixels * channels * bytes = 4 * channels).
  w.plane_words = gsize(w.invocations) * (planar ? 1 : spec.channels);
  w.bytes = w.plane_words * 4 * w.planes;
  w.exact = pixels % w.pixels == 0;
  const gsize plane_bytes = pixels * bytes * (planar ? 1 : spec.channels);
  for (guint p = 0; p < w.planes; ++p)
    w.pieces[p] = {p * w.plane_words * 4, p * plane_bytes, plane_bytes};
  w.n_pieces = w.planes;
  const gsize group = gsize(kTensorGroupWidth) * kTensorGroupHeight;
  gsize row =
      std::min<gsize>(kMaxRowGroups, (w.invocations + kTensorGroupWidth - 1) / kTensorGroupWidth);
  // Longer rows where more rows of groups than a dispatch takes would be
  // needed: the shortest row that fits in limit.y of them.
  const gsize shortest_row = (w.invocations + group * limit.y - 1) / (group * limit.y);
  row = std::max(row, shortest_row);
  if (row > limit.x)
    return w;
  const gsize row_invocations = row * kTensorGroupWidth;
  const gsize rows = (w.invocations + row_invocations - 1) / row_invocations;
  w.groups = {guint(row), guint((rows + kTensorGroupHeight - 1) / kTensorGroupHeight)};
  return w;
}

}  // namespace ef::gst::gl
