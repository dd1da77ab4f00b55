// SPDX-License-Identifier: LGPL-2.1-or-later
// The steps of one CPU conversion: read the crop, scale, turn, expand the
// range, write. Each is cut into bands of output rows on the backend's
// helper threads wherever its rows come out the same whatever the cut (a
// plane scaled by libyuv's general scaler is not: it runs whole, planes in
// parallel); scale, expansion and write run as one round of bands where
// nothing turns. They share the frame's scratch memory; cpu_converter.cpp
// decides their order.
#pragma once

#include <gst/video/video.h>
#include <libyuv.h>

#include <array>

#include "cpu_deep.hpp"
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
  Deep deep = Deep::None;  // more than 8 bits: read into a deep image
  int bits = 8;            // significant bits a sample
};

enum class TurnOp { None, Rotate90, Rotate180, Rotate270, Mirror };

// A scale planned on the calling thread (the arena is not shared): the
// planes it reads and writes, and whether every plane's output rows can be
// made a band at a time, each band the same bytes whatever the cut.
struct ScalePlan {
  Image in, out;
  std::array<Plane, 3> chroma_from{};  // chroma split before it is scaled
  bool luma = false, chroma = false;   // whether each is scaled
  bool banded = false;
};

class Steps {
 public:
  // `bands`: how many bands each step is cut into on `pool` (1: all on the
  // calling thread). The bytes never depend on it.
  Steps(const ConvertParams &params, Pool &pool, unsigned bands, Arena &arena);

  // The crop, read in place where libyuv can read the format (a deep
  // source's into 16-bit planes, cpu_deep.hpp). With luma_only, a YUV
  // source's Y plane alone (a gray image).
  Image load(const GstVideoFrame &src, const SourceFormat &format, bool luma_only);
  // Plane 0 to w x h, and YUV chroma to w x h too (4:4:4). Planes already
  // that size stay where they are.
  ScalePlan plan_scale(const Image &image, int w, int h);
  Image scale(const ScalePlan &plan);
  Image turn(const Image &image, TurnOp op);
  // Limited-range YUV to full range (see cpu_range.hpp).
  Image expand_range(const Image &image);
  // The destination's `rows` rows by `writer`.
  void write(const Image &image, const RowWriter &writer, int rows);
  // A banded plan, then the range expansion where asked, then the write,
  // in one round: each band scales the content rows it writes from the
  // source rows they need, so its rows stay in its core's cache.
  void scale_and_write(const ScalePlan &plan, bool expand, const RowWriter &writer, int rows);

 private:
  Plane new_plane(int w, int h, int bpp);
  void jobs(size_t n, JobRef job);
  Image unpack(const GstVideoFrame &src, const SourceFormat &format, int x, int y);
  Image load_deep(const GstVideoFrame &src, const SourceFormat &format, int x, int y,
                  bool luma_only);
  Plane deep_luma(const GstVideoFrame &src, const SourceFormat &format, int x, int y);
  // Whether the plane's elements are single samples (bytes, or a deep
  // image's 16-bit samples).
  bool single(const Plane &p) const { return p.bpp == 1 || deep_; }
  bool exact(const Plane &in, int w, int h) const;
  bool large_box(const Plane &in, const Plane &out) const;
  // Whether `in` goes to w x h by the box of 3 (cpu_box.hpp).
  bool box3(const Plane &in, int w, int h) const;
  // Whether interleaved `in` goes to w x h by the box of 1.5.
  bool box32(const Plane &in, int w, int h) const;
  bool plane_banded(const Plane &in, const Plane &out) const;
  bool chroma_banded(const ScalePlan &plan) const;
  bool plan_chroma(const Image &image, int w, int h, Image &out, std::array<Plane, 3> &from);
  // Rows [r0, r1) of every plane a banded plan writes.
  void scale_rows(const ScalePlan &plan, int r0, int r1) const;
  void scale_plane_rows(const Plane &in, const Plane &out, int r0, int r1) const;
  void scale_chroma_rows(const ScalePlan &plan, int r0, int r1) const;
  void scale_chroma(const ScalePlan &plan) const;
  void scale_rgb4(const Plane &in, const Plane &out);
  void scale_plane(const Plane &in, const Plane &out) const;
  Image new_like(const Image &image);
  void turn_rows(const Plane &in, const Plane &out, const Plane &out_v, TurnOp op, int r0,
                 int r1) const;

  const ConvertParams &params_;
  Pool &pool_;
  unsigned bands_;
  Arena &arena_;
  libyuv::FilterMode filter_;
  bool deep_ = false;  // the frame's planes are 16-bit samples (load says)
};

}  // namespace ef::gst::cpu
