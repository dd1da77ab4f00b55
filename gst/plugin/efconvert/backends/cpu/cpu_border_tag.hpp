// SPDX-License-Identifier: LGPL-2.1-or-later
// Letterbox border rows written once per pooled memory. The CPU backend
// tags the memory it wrote (gst_ef_fd_memory_set_tag) with a number that
// stands for the bytes of the rows above and below the content; the next
// conversion into the same memory leaves those rows as they are where the
// tag is still there and names the same bytes. Any map of the memory for
// writing in between (an element changing the frame in place, another
// backend's read-back into it) clears the tag, and the rows are written
// again; the GL backend, which renders into imported memory without a map,
// clears it itself. The number is exact, not a hash: a new one comes from
// a counter of the process whenever anything that decides the rows' bytes
// changes, so two borders never share one.
#pragma once

#include <gst/video/video.h>

#include <array>
#include <cstdint>
#include <optional>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst::cpu {

// Where the border rows are and their colour, for every output.
struct BorderRows {
  int top = 0, bottom = 0;  // the content's rows: [top, bottom)
  std::array<uint8_t, 4> fill{};
  // Whether an output of `height` rows has any.
  bool any(int height) const { return top > 0 || bottom < height; }
  bool operator==(const BorderRows &) const = default;
};

BorderRows border_rows_of(const ConvertParams &params);

// What a tensor's border rows' bytes follow from.
struct TensorBorderKey {
  TensorSpec spec;
  BorderRows rows;
  TensorNorm norm;
  bool vectorised = false, streams = false;  // the kernel's path (TensorKernel)
  unsigned alignment = 0;  // of the tensor's address, modulo 64: where the vector path starts
  bool operator==(const TensorBorderKey &) const = default;
};

TensorBorderKey border_key(const uint8_t *data, const TensorSpec &spec, const ConvertParams &params,
                           bool vectorised, bool streams);

// The same for an image (a mapped frame): its format and planes.
struct ImageBorderKey {
  GstVideoFormat format = GST_VIDEO_FORMAT_UNKNOWN;
  int width = 0, height = 0;
  std::array<int, GST_VIDEO_MAX_PLANES> strides{};
  std::array<gsize, GST_VIDEO_MAX_PLANES> offsets{};  // in the buffer (its video meta's)
  BorderRows rows;
  bool operator==(const ImageBorderKey &) const = default;
};

ImageBorderKey border_key(const GstVideoFrame &frame, const ConvertParams &params);

// A number no other key of the process has had (never 0).
uint64_t new_border_tag();

// The tags of one writer (a backend): the same number while its key stays
// the same, a new one when it changes or after a frame written without
// keeping (keep-borders=false): while false something may change outputs
// through their fds, which clears no tag, so no tag set before or during
// it may be trusted after (tag_for_frame).
template <typename Key>
class BorderTags {
 public:
  uint64_t tag_for(const Key &key) {
    if (!key_ || !(*key_ == key)) {
      key_ = key;
      tag_ = new_border_tag();
    }
    return tag_;
  }

  // The tag to set after this frame's write: 0 (none) when not keeping.
  uint64_t tag_for_frame(const Key &key, bool keeping) {
    if (!keeping) {
      key_.reset();
      return 0;
    }
    return tag_for(key);
  }

 private:
  std::optional<Key> key_;
  uint64_t tag_ = 0;
};

// The tag of `out`'s memory, read before it is mapped for writing (which
// clears it); 0 for a buffer of more than one memory.
uint64_t held_border_tag(GstBuffer *out);
// After a write into `out` that made the border rows `tag` stands for.
void tag_borders(GstBuffer *out, uint64_t tag);

}  // namespace ef::gst::cpu
