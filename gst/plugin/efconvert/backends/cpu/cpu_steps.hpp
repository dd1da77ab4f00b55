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

#include "cpu_area.hpp"
#include "cpu_deep.hpp"
#include "cpu_image.hpp"
#include "cpu_pool.hpp"
#include "cpu_writer.hpp"
#include "efconvert/plan/convert_params.hpp"

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

// How a plane is scaled.
enum class Kernel {
  None,          // not scaled: the output is the input
  Copy,          // the same size (interleaved chroma: split)
  Box3,          // cpu_box.hpp: by exactly 3
  Box3Cosited,   // the same, interleaved chroma cosited across
  Box32,         // cpu_box.hpp: interleaved chroma by exactly 1.5, centred
  Box32Cosited,  // the same, chroma cosited across
  Up2Cosited,    // cpu_up2.hpp: chroma by exactly 2 larger, cosited across
  Area,          // cpu_area.hpp: the exact footprint, sited (bytes or a deep plane's words)
  Libyuv,        // libyuv's scaler: nearest, bilinear, its boxes of 2 and 4 (16-bit: ScalePlane_16)
};

struct PlaneScale {
  Kernel kernel = Kernel::None;
  Axis x, y;
  const Resampler *area = nullptr;  // for Area: in the frame's arena
};

// A scale planned on the calling thread (the arena is not shared): the
// planes it reads and writes, how, and whether every plane's output rows
// can be made a band at a time, each band the same bytes whatever the cut.
struct ScalePlan {
  Image in, out;
  std::array<Plane, 3> chroma_from{};  // chroma split before libyuv scales it
  PlaneScale luma, chroma;
  bool banded = false;
};

class Steps {
 public:
  // `bands`: how many bands each step is cut into on `pool` (1: all on the
  // calling thread). The bytes never depend on it. `fine`: the scaled
  // planes of an 8-bit source come out as 16-bit words, each sample times
  // 256, rounded there and not to a byte (a deep image of 8 bits,
  // cpu_image.hpp): for a float tensor, whose values keep what lies
  // between two 8-bit levels as a deep source's do.
  Steps(const ConvertParams &params, Pool &pool, unsigned bands, Arena &arena, bool fine = false);

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
  Image unpack(const GstVideoFrame &src, const SourceFormat &format, const GstVideoRectangle &r);
  Image load_deep(const GstVideoFrame &src, const SourceFormat &format, const GstVideoRectangle &r,
                  bool luma_only);
  Plane deep_luma(const GstVideoFrame &src, const SourceFormat &format, const GstVideoRectangle &r);
  bool exact(const Plane &in, int w, int h) const;
  // How plane `in` goes to x.out x y.out, its axes as `x` and `y` say;
  // sets their filters where it is Area.
  Kernel kernel_for(const Plane &in, Axis &x, Axis &y) const;
  // The kernel for `in` and, for Area, its resampler; `footprint`: Area
  // with the axes' own `area` flags, whatever the ratio (chroma where luma
  // takes the footprint).
  PlaneScale plan_plane(const Plane &in, const Axis &x, const Axis &y, bool footprint = false);
  void plan_chroma(const Image &image, int w, int h, ScalePlan &plan);
  // Rows [r0, r1) of every plane a banded plan writes. `slot`: the
  // resamplers' scratch this thread uses (its band, or its plane's job).
  void scale_rows(const ScalePlan &plan, unsigned slot, int r0, int r1) const;
  void scale_plane_rows(const Plane &in, const Plane &out, const PlaneScale &how, unsigned slot,
                        int r0, int r1) const;
  void scale_chroma_rows(const ScalePlan &plan, unsigned slot, int r0, int r1) const;
  void scale_chroma(const ScalePlan &plan) const;
  void scale_rgb4(const Plane &in, const Plane &out, const PlaneScale &how);
  // A widened Rgb4 image's rows [r0, r1): its R, G, B planes of words.
  void widen_rgb4_rows(const ScalePlan &plan, unsigned slot, int r0, int r1) const;
  // An 8-bit image as words (a deep image of 8 bits), its bytes times 256.
  Image widened(const Image &image);
  void scale_plane(const Plane &in, const Plane &out, const PlaneScale &how, unsigned slot) const;
  Image new_like(const Image &image);
  // `sixteen`: planes of 16-bit samples (a deep image).
  void turn_rows(const Plane &in, const Plane &out, const Plane &out_v, TurnOp op, int r0, int r1,
                 bool sixteen) const;
  // The destination's rows as bands are cut from them for `writer`.
  Cut cut_for(const RowWriter &writer, int rows) const;

  const ConvertParams &params_;
  Pool &pool_;
  unsigned bands_;
  Arena &arena_;
  libyuv::FilterMode filter_;
  bool deep_ = false;     // the frame's planes are 16-bit samples (load says)
  bool fine_ = false;     // as constructed; where the source has 8 bits (load says):
  bool widen_ = false;    // every plane scaled into words
  bool promote_ = false;  // nearest: scaled as bytes, then widened
};

}  // namespace ef::gst::cpu
