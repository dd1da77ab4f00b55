// SPDX-License-Identifier: LGPL-2.1-or-later
// The steps of one CPU conversion, each over a whole image: read the crop,
// scale, turn, expand the range, write. They share the frame's scratch
// memory and helper threads; cpu_converter.cpp decides their order.
#pragma once

#include <gst/video/video.h>
#include <libyuv.h>

#include "cpu_image.hpp"
#include "cpu_pool.hpp"
#include "cpu_writer.hpp"
#include "efconvert/convert_params.hpp"

namespace ef::gst::cpu {

// Packed formats libyuv can neither scale nor turn, unpacked before either.
enum class Unpack { None, Yuy2, Uyvy, Rgb24 };

// How a source format is read.
struct SourceFormat {
  Layout layout = Layout::Gray;
  Unpack unpack = Unpack::None;
  int wsub = 0;  // chroma subsampling, log2
  int hsub = 0;
  bool interleaved = false;  // one U,V plane
  bool red_first = false;
  Alpha alpha = Alpha::Opaque;
};

enum class TurnOp { None, Rotate90, Rotate180, Rotate270, Mirror };

class Steps {
 public:
  Steps(const ConvertParams &params, unsigned workers, Arena &arena);

  // The crop, read in place where libyuv can read the format. With
  // luma_only, a YUV source's Y plane alone (a gray image).
  Image load(const GstVideoFrame &src, const SourceFormat &format, bool luma_only);
  // Plane 0 to w x h, and YUV chroma to w x h too (4:4:4). Planes already
  // that size stay where they are.
  Image scale(const Image &image, int w, int h);
  Image turn(const Image &image, TurnOp op);
  // Limited-range YUV to full range (see cpu_range.hpp).
  Image expand_range(const Image &image);
  void write(const Image &image, GstVideoFrame &dst, YuvMatrix matrix);

 private:
  Plane new_plane(int w, int h, int bpp);
  Image unpack(const GstVideoFrame &src, const SourceFormat &format, int x, int y);
  bool exact(const Plane &in, int w, int h) const;
  bool large_box(const Plane &in, const Plane &out) const;
  // Whether `in` goes to w x h by the box of 3 (cpu_box.hpp).
  bool box3(const Plane &in, int w, int h) const;
  // Whether interleaved `in` goes to w x h by the box of 1.5.
  bool box32(const Plane &in, int w, int h) const;
  bool plan_chroma(const Image &image, int w, int h, Image &out, std::array<Plane, 3> &from);
  void scale_chroma(const Image &image, const Image &out, const std::array<Plane, 3> &from) const;
  void scale_rgb4(const Plane &in, const Plane &out);
  void scale_plane(const Plane &in, const Plane &out) const;
  void turn_plane(const Plane &in, const Plane &out, const Plane &out_v, TurnOp op) const;

  const ConvertParams &params_;
  unsigned workers_;
  Arena &arena_;
  libyuv::FilterMode filter_;
};

}  // namespace ef::gst::cpu
