// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_steps.hpp"

#include <algorithm>
#include <array>
#include <new>
#include <vector>

#include "cpu_box.hpp"
#include "cpu_range.hpp"
#include "cpu_up2.hpp"
#include "common/vectorize.hpp"

namespace ef::gst::cpu {
namespace {

libyuv::RotationMode rotation_of(TurnOp op) {
  switch (op) {
    case TurnOp::Rotate90:
      return libyuv::kRotate90;
    case TurnOp::Rotate180:
      return libyuv::kRotate180;
    case TurnOp::Rotate270:
      return libyuv::kRotate270;
    default:
      return libyuv::kRotate0;
  }
}

// libyuv (1857) blends 2- and 4-byte elements (U,V pairs, ARGB) with
// weights that sum to 127/128 in some geometries: 255 comes out 253, neutral
// chroma 128 as 127. Which geometries take that path is libyuv's business,
// so it is measured, once per geometry: a constant image (one row, stride
// 0) must come out unchanged. Planes of single bytes are always exact.
bool scales_exactly(int bpp, int sw, int sh, int dw, int dh, libyuv::FilterMode filter) {
  struct Probe {
    int bpp, sw, sh, dw, dh;
    libyuv::FilterMode filter;
    bool exact;
  };
  thread_local std::array<Probe, 8> probes{};
  thread_local size_t next = 0;
  for (const Probe &p : probes)
    if (p.bpp == bpp && p.sw == sw && p.sh == sh && p.dw == dw && p.dh == dh && p.filter == filter)
      return p.exact;
  thread_local std::vector<uint8_t> in, out;
  in.assign(size_t(sw) * bpp, 255);
  out.assign(size_t(dw) * bpp, 0);
  if (bpp == 2)
    libyuv::UVScale(in.data(), 0, sw, sh, out.data(), 0, dw, dh, filter);
  else
    libyuv::ARGBScale(in.data(), 0, sw, sh, out.data(), 0, dw, dh, filter);
  const bool exact = std::all_of(out.begin(), out.end(), [](uint8_t b) { return b == 255; });
  probes[next++ % probes.size()] = {bpp, sw, sh, dw, dh, filter, exact};
  return exact;
}

Plane plane_view(const GstVideoFrame &frame, guint plane, int x, int y, int w, int h, int bpp) {
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
  auto *data = static_cast<uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane));
  return {data + ptrdiff_t(y) * stride + ptrdiff_t(x) * bpp, stride, w, h, bpp};
}

const uint8_t *source_row(const GstVideoFrame &frame, guint plane, int y) {
  return static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, plane)) +
         ptrdiff_t(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, plane);
}

uint16_t *words(const Plane &p, int y) {
  return reinterpret_cast<uint16_t *>(p.row(y));
}

// Rows [r0, r1) of `out` (words) from byte `byte` of every `step` bytes of
// `in`'s rows, each times 256: a byte plane's own bytes (step 1), one of
// a U,V pair (2) or one colour of a 4-byte pixel (4).
EF_VECTORIZE void widen_rows(const Plane &in, int step, int byte, const Plane &out, int r0,
                             int r1) {
  for (int y = r0; y < r1; ++y) {
    const uint8_t *from = in.row(y) + byte;
    uint16_t *to = words(out, y);
    for (int x = 0; x < out.width; ++x)
      to[x] = uint16_t(from[ptrdiff_t(x) * step] << 8);
  }
}

}  // namespace

Steps::Steps(const ConvertParams &params, Pool &pool, unsigned bands, Arena &arena, bool fine)
    : params_(params),
      pool_(pool),
      bands_(bands),
      arena_(arena),
      // libyuv's box filter is its bilinear one where neither side shrinks
      // by 2 or more; beyond, it averages every source pixel (bilinear would
      // skip some: aliasing).
      filter_(params.method == ScaleMethod::Nearest ? libyuv::kFilterNone : libyuv::kFilterBox),
      fine_(fine) {}

Plane Steps::new_plane(int w, int h, int bpp) {
  const int stride = (w * bpp + 63) & ~63;
  return {arena_.take(size_t(stride) * h), stride, w, h, bpp};
}

// Jobs that are not bands (planes, colours) share the pool only where the
// frame is cut at all: a small frame runs on the calling thread throughout.
void Steps::jobs(size_t n, JobRef job) {
  if (bands_ > 1) {
    pool_.run(n, job);
    return;
  }
  for (size_t i = 0; i < n; ++i)
    job(i);
}

Image Steps::load(const GstVideoFrame &src, const SourceFormat &f, bool luma_only) {
  const GstVideoRectangle &c = params_.crop;
  // Read from the chroma grid (a subsampled format's samples cover whole
  // pairs), then the luma from the crop's own first pixel: a crop that
  // starts on the second pixel of a pair keeps its place, and its chroma
  // sits a pixel further left (the site, below).
  const int dx = c.x & ((1 << f.wsub) - 1), dy = c.y & ((1 << f.hsub) - 1);
  const GstVideoRectangle r{c.x - dx, c.y - dy, c.w + dx, c.h + dy};
  Image image;
  deep_ = f.deep != Deep::None;
  widen_ = fine_ && !deep_ && filter_ != libyuv::kFilterNone;
  promote_ = fine_ && !deep_ && filter_ == libyuv::kFilterNone;
  if (deep_) {
    image = load_deep(src, f, r, luma_only);
  } else if (f.unpack != Unpack::None) {
    image = unpack(src, f, r);
  } else {
    image.layout = f.layout;
    image.planes[0] = plane_view(src, 0, r.x, r.y, r.w, r.h, f.layout == Layout::Rgb4 ? 4 : 1);
    if (f.layout == Layout::Yuv) {
      const int cx = r.x >> f.wsub, cy = r.y >> f.hsub;
      const int cw = subsampled(r.w, f.wsub), ch = subsampled(r.h, f.hsub);
      image.n_planes = f.interleaved ? 2 : 3;
      if (f.interleaved)
        image.planes[1] = plane_view(src, 1, cx, cy, cw, ch, 2);
      else  // by component: YV12 has V before U
        for (guint comp : {1u, 2u})
          image.planes[comp] =
              plane_view(src, GST_VIDEO_FRAME_COMP_PLANE(&src, comp), cx, cy, cw, ch, 1);
    }
  }
  Plane &luma = image.planes[0];
  luma = {luma.at(dx, dy), luma.stride, c.w, c.h, luma.bpp};
  image.wsub = f.wsub;
  image.hsub = f.hsub;
  const GstVideoChromaSite site = params_.chroma_site;
  image.site_x = f.wsub ? ((site & GST_VIDEO_CHROMA_SITE_H_COSITED) ? 1 : 0) + 2 * dx : 0;
  image.site_y = f.hsub ? ((site & GST_VIDEO_CHROMA_SITE_V_COSITED) ? 1 : 0) + 2 * dy : 0;
  image.red_first = f.red_first;
  image.alpha = f.alpha;
  if (luma_only) {
    image.layout = Layout::Gray;
    image.n_planes = 1;
  }
  return image;
}

// A deep source's luma: P010's in place where its rows are whole words
// (libyuv's 16-bit calls count strides in words), else read into the
// arena a band of rows at a time.
Plane Steps::deep_luma(const GstVideoFrame &src, const SourceFormat &f,
                       const GstVideoRectangle &c) {
  const int x = c.x, y = c.y;
  const Plane view = plane_view(src, 0, x, y, c.w, c.h, 2);
  if (f.deep == Deep::Msb && view.stride % 2 == 0 &&
      reinterpret_cast<uintptr_t>(view.data) % 2 == 0)
    return view;
  const Plane out = new_plane(c.w, c.h, 2);
  for_bands(pool_, bands_, {c.h}, [&](int, int r0, int r1) {
    for (int r = r0; r < r1; ++r) {
      const uint8_t *row = source_row(src, 0, y + r);
      if (f.deep == Deep::Packed40)
        unpack40(row, x, words(out, r), c.w);
      else if (f.deep == Deep::Msb)
        copy_words(row + 2 * x, words(out, r), c.w);
      else
        words_to_msb(row + 2 * x, words(out, r), c.w, f.bits);
    }
  });
  return out;
}

// A deep source's crop as 16-bit samples in the high bits, chroma as two
// planes (split where it was interleaved).
Image Steps::load_deep(const GstVideoFrame &src, const SourceFormat &f, const GstVideoRectangle &c,
                       bool luma_only) {
  const int x = c.x, y = c.y;
  Image image;
  image.layout = Layout::Yuv;
  image.deep = true;
  image.bits = f.bits;
  image.n_planes = 3;
  image.planes[0] = deep_luma(src, f, c);
  if (luma_only)
    return image;
  const int cx = x >> f.wsub, cy = y >> f.hsub;
  const int cw = subsampled(c.w, f.wsub), ch = subsampled(c.h, f.hsub);
  const Plane u = new_plane(cw, ch, 2), v = new_plane(cw, ch, 2);
  image.planes[1] = u;
  image.planes[2] = v;
  for_bands(pool_, bands_, {ch}, [&](int, int r0, int r1) {
    for (int r = r0; r < r1; ++r) {
      if (f.deep == Deep::Packed40) {
        unpack40_pairs(source_row(src, 1, cy + r), cx, words(u, r), words(v, r), cw);
      } else if (f.interleaved) {
        split_words(source_row(src, 1, cy + r) + 4 * cx, words(u, r), words(v, r), cw);
      } else {
        const Plane *out[] = {nullptr, &u, &v};
        for (guint comp : {1u, 2u})
          words_to_msb(source_row(src, GST_VIDEO_FRAME_COMP_PLANE(&src, comp), cy + r) + 2 * cx,
                       words(*out[comp], r), cw, f.bits);
      }
    }
  });
  return image;
}

Image Steps::unpack(const GstVideoFrame &src, const SourceFormat &f, const GstVideoRectangle &c) {
  const int x = c.x, y = c.y;
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&src, 0);
  const uint8_t *first = static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&src, 0)) +
                         ptrdiff_t(y) * stride +
                         ptrdiff_t(x) * GST_VIDEO_FRAME_COMP_PSTRIDE(&src, 0);
  Image image;
  image.layout = f.layout;
  if (f.unpack == Unpack::Rgb24) {
    // RGB24ToARGB only moves bytes: the colour order stays as it was.
    const Plane out = new_plane(c.w, c.h, 4);
    image.planes[0] = out;
    for_bands(pool_, bands_, {c.h}, [&](int, int y0, int y1) {
      libyuv::RGB24ToARGB(first + ptrdiff_t(y0) * stride, stride, out.row(y0), out.stride, c.w,
                          y1 - y0);
    });
    return image;
  }
  const auto to_i422 = f.unpack == Unpack::Yuy2 ? libyuv::YUY2ToI422 : libyuv::UYVYToI422;
  image.n_planes = 3;
  image.planes[0] = new_plane(c.w, c.h, 1);
  image.planes[1] = new_plane(subsampled(c.w, 1), c.h, 1);
  image.planes[2] = new_plane(subsampled(c.w, 1), c.h, 1);
  const auto &p = image.planes;
  for_bands(pool_, bands_, {c.h}, [&](int, int y0, int y1) {
    to_i422(first + ptrdiff_t(y0) * stride, stride, p[0].row(y0), p[0].stride, p[1].row(y0),
            p[1].stride, p[2].row(y0), p[2].stride, c.w, y1 - y0);
  });
  return image;
}

bool Steps::exact(const Plane &in, int w, int h) const {
  return in.bpp == 1 || scales_exactly(in.bpp, in.width, in.height, w, h, filter_);
}

namespace {

// Whether an axis's footprints start and end on sample edges: not so for
// subsampled chroma of an odd span, whose last sample is half outside.
bool whole(const Axis &a) {
  return int64_t(a.samples) * a.sub == a.span;
}

// libyuv's boxes of exactly 2 and 4 each way, the mean of 4 or 16 pixels
// rounded: exact, and faster than ours.
bool libyuv_box(const Plane &in, const Axis &x, const Axis &y) {
  return (in.width == 2 * x.out && in.height == 2 * y.out) ||
         (in.width == 4 * x.out && in.height == 4 * y.out);
}

// A plane's channels as the resampler writes them: a byte each, or one
// 16-bit sample (a deep plane).
Outputs outputs_of(const Plane &out, bool deep) {
  const int channels = deep ? 1 : out.bpp;
  Outputs o;
  for (int c = 0; c < channels; ++c)
    o.data[size_t(c)] = out.data + c, o.stride[size_t(c)] = out.stride;
  o.step = channels;
  return o;
}

// Chroma of `image` to w x h, every sample where the image says it sits.
std::array<Axis, 2> chroma_axes(const Image &image, int w, int h) {
  const Plane &luma = image.planes[0];
  const Plane &c = image.planes[1];
  return {Axis{c.width, w, luma.width, 1 << image.wsub, image.wsub ? image.site_x : 0},
          Axis{c.height, h, luma.height, 1 << image.hsub, image.hsub ? image.site_y : 0}};
}

// The exact footprint; where nothing reduces by 2 (`boxed`), an axis that
// enlarges interpolates.
Kernel area(Axis &x, Axis &y, bool boxed) {
  x.area = boxed || reduces_by(x, 1);
  y.area = boxed || reduces_by(y, 1);
  return Kernel::Area;
}

}  // namespace

// libyuv's box takes whole source pixels at each footprint's edge (colour
// steps 10 levels off at 9.7 x 14.1), darkens boxes beyond 256 pixels, and
// filters an axis that shrinks by less than 2 bilinearly (two rows of 240
// for a one-pixel-high output); it takes every chroma sample as centred.
// So everything that some axis reduces by more than 1.5 (where the GPU
// passes take their box: boxes()) goes by the exact footprint
// (cpu_area.hpp), but for libyuv's boxes of 2 and 4 and our own of 3 and
// 1.5, and so does sited chroma and every enlarging axis; libyuv keeps
// the milder reductions.
// A deep plane (16-bit samples) has none of our byte kernels: the exact
// footprint, or libyuv's ScalePlane_16 for the milder reductions.
Kernel Steps::kernel_for(const Plane &in, Axis &x, Axis &y) const {
  const bool sited = x.site != 0 || y.site != 0;
  const bool edges = whole(x) && whole(y);
  if (in.width == x.out && in.height == y.out && !sited && edges)
    return Kernel::Copy;
  if (filter_ == libyuv::kFilterNone)
    return Kernel::Libyuv;
  const bool boxed = boxes(x) || boxes(y);
  // libyuv enlarges end to end (its first and last samples on the output's
  // first and last: up to half an output pixel off the centred mapping the
  // GPU passes and GStreamer's scalers take); the resampler interpolates
  // between the samples' sites.
  const bool enlarges = !reduces_by(x, 1) || !reduces_by(y, 1);
  if (deep_)
    return sited || boxed || enlarges ? area(x, y, boxed) : Kernel::Libyuv;
  // Bytes into words: the box kernels of 3 (a plane's) and 1.5 have word
  // outputs; the rest goes by the footprint, and the milder reductions that
  // libyuv's bilinear filter takes (rounding to bytes) interpolate linearly
  // between the samples' centres instead.
  const bool thirds = in.width == 3 * x.out && in.height == 3 * y.out;
  if (!sited && edges && in.bpp <= (widen_ ? 1 : 2) && thirds)
    return Kernel::Box3;
  if (!widen_ && in.bpp == 2 && edges && x.site == 1 && y.site == 0 && thirds)
    return Kernel::Box3Cosited;
  if (in.bpp == 2 && edges && y.site == 0 && (x.site == 0 || x.site == 1) && x.out % 2 == 0 &&
      y.out % 2 == 0 && 2 * in.width == 3 * x.out && 2 * in.height == 3 * y.out)
    return x.site ? Kernel::Box32Cosited : Kernel::Box32;
  if (widen_) {
    if (sited || boxed || enlarges)
      return area(x, y, boxed);
    x.area = y.area = false;
    return Kernel::Area;
  }
  if (in.bpp <= 2 && edges && x.site == 1 && y.site == 0 && x.out == 2 * in.width &&
      y.out == y.sub * in.height)
    return Kernel::Up2Cosited;
  if (!sited && !enlarges && (!boxed || (edges && libyuv_box(in, x, y))))
    return Kernel::Libyuv;
  return area(x, y, boxed);
}

PlaneScale Steps::plan_plane(const Plane &in, const Axis &x, const Axis &y, bool footprint) {
  PlaneScale how;
  how.x = x, how.y = y;
  how.kernel = footprint ? Kernel::Area : kernel_for(in, how.x, how.y);
  if (how.kernel == Kernel::Area) {
    // A slot a band, and one a chroma plane where the planes are jobs.
    void *memory = arena_.take(sizeof(Resampler));
    const int channels = deep_ ? 1 : in.bpp;
    const Samples samples = deep_    ? Samples::Words
                            : widen_ ? Samples::BytesToWords
                                     : Samples::Bytes;
    how.area =
        new (memory) Resampler(how.x, how.y, channels, std::max(bands_, 2u), arena_, samples);
  }
  return how;
}

ScalePlan Steps::plan_scale(const Image &image, int w, int h) {
  ScalePlan plan;
  plan.in = plan.out = image;
  const Plane &y = image.planes[0];
  // Widened, every plane is written (in words), the same size or not.
  if (y.width != w || y.height != h || widen_) {
    plan.out.planes[0] = new_plane(w, h, widen_ ? 2 : y.bpp);
    plan.luma = plan_plane(y, plain_axis(y.width, w), plain_axis(y.height, h));
  }
  if (widen_) {
    plan.out.deep = true;
    plan.out.bits = 8;
  }
  if (image.layout == Layout::Rgb4 && widen_) {
    // R, G, B planes of words, from bytes 0-2 of each pixel.
    plan.out.n_planes = 3;
    plan.out.planes[1] = new_plane(w, h, 2);
    plan.out.planes[2] = new_plane(w, h, 2);
    plan.out.red_first = true;
    plan.out.alpha = Alpha::Opaque;
    plan.banded = true;
    return plan;
  }
  if (image.layout == Layout::Rgb4) {
    // ARGBScaleClip cuts libyuv's scale of the whole into bands; the byte
    // by byte path does not cut.
    plan.banded = (plan.luma.kernel != Kernel::Libyuv || exact(y, w, h)) && !promote_;
    return plan;
  }
  if (image.layout == Layout::Yuv)
    plan_chroma(image, w, h, plan);
  // libyuv's general plane scaler has no clip: a band scaled on its own
  // would start at another phase. Every other kernel's output rows depend
  // on a fixed set of input rows. Planes widened after the scale are
  // widened whole.
  plan.banded =
      plan.luma.kernel != Kernel::Libyuv && plan.chroma.kernel != Kernel::Libyuv && !promote_;
  return plan;
}

Image Steps::scale(const ScalePlan &plan) {
  const bool luma = plan.luma.kernel != Kernel::None;
  const bool chroma = plan.chroma.kernel != Kernel::None;
  if (plan.banded) {
    if (luma || chroma)
      for_bands(pool_, bands_, {plan.out.planes[0].height},
                [&](int k, int r0, int r1) { scale_rows(plan, unsigned(k), r0, r1); });
    return plan.out;
  }
  if (plan.in.layout == Layout::Rgb4) {
    if (luma)
      scale_rgb4(plan.in.planes[0], plan.out.planes[0], plan.luma);
    return promote_ ? widened(plan.out) : plan.out;
  }
  // A plane a job, luma (the largest) first; interleaved chroma is split
  // before its planes are scaled, so it is one job.
  const size_t chroma_jobs = chroma ? (plan.in.interleaved_chroma() ? 1 : 2) : 0;
  auto job = [&](size_t k) {
    if (luma && k == 0)
      return scale_plane(plan.in.planes[0], plan.out.planes[0], plan.luma, 0);
    const size_t c = k - size_t(luma);
    if (chroma_jobs == 1)
      return scale_chroma(plan);
    scale_plane(plan.chroma_from[1 + c], plan.out.planes[1 + c], plan.chroma, unsigned(c));
  };
  jobs(size_t(luma) + chroma_jobs, job);
  return promote_ ? widened(plan.out) : plan.out;
}

// Every output pixel gets chroma of its own: U and V planes at the luma's
// size (4:4:4), so colour edges are as sharp as the output allows and not
// on a 2-pixel grid, each sample weighed where it sits. Planes are taken
// here, on the calling thread (the arena is not shared); scale_chroma()
// or scale_chroma_rows() fills them.
void Steps::plan_chroma(const Image &image, int w, int h, ScalePlan &plan) {
  Image &out = plan.out;
  out.wsub = out.hsub = 0;
  out.site_x = out.site_y = 0;
  out.n_planes = 3;
  const Plane &c = image.planes[1];
  plan.chroma_from = image.planes;
  const auto [x, y] = chroma_axes(image, w, h);
  PlaneScale &how = plan.chroma;
  // Chroma over the footprint along each axis where luma is (as the GL and
  // CUDA passes and the box reference): subsampled, it reduces by half as
  // much, and its own choice for that milder ratio (libyuv's bilinear
  // filter, or interpolation along an axis it enlarges) takes a point or
  // two rows of a footprint whose luma is the exact mean: colour edges 57
  // levels off (NV12 checkers 96x60 -> 96x17; 30 at 1080p -> 640x640
  // stretched), against 0.3 for the box reference.
  if (plan.luma.kernel == Kernel::Area) {
    Axis fx = x, fy = y;
    const bool own_area = kernel_for(c, fx, fy) == Kernel::Area;
    fx.area = boxes(plan.luma.x) || (own_area && fx.area);
    fy.area = boxes(plan.luma.y) || (own_area && fy.area);
    how = plan_plane(c, fx, fy, true);
  } else {
    how = plan_plane(c, x, y);
  }
  if (how.kernel == Kernel::Copy && !image.interleaved_chroma() && !widen_) {
    how.kernel = Kernel::None;  // the planes as they are
    return;
  }
  const int bpp = deep_ || widen_ ? 2 : 1;
  out.planes[1] = new_plane(w, h, bpp);
  out.planes[2] = new_plane(w, h, bpp);
  if (image.interleaved_chroma() && how.kernel == Kernel::Libyuv) {
    plan.chroma_from[1] = new_plane(c.width, c.height, 1);
    plan.chroma_from[2] = new_plane(c.width, c.height, 1);
  }
}

void Steps::scale_rows(const ScalePlan &plan, unsigned slot, int r0, int r1) const {
  if (plan.in.layout == Layout::Rgb4 && plan.out.deep)
    return widen_rgb4_rows(plan, slot, r0, r1);
  if (plan.luma.kernel != Kernel::None)
    scale_plane_rows(plan.in.planes[0], plan.out.planes[0], plan.luma, slot, r0, r1);
  if (plan.chroma.kernel != Kernel::None)
    scale_chroma_rows(plan, slot, r0, r1);
}

// Rows [r0, r1) of a plane whose kernel bands (and libyuv's clipped ARGB
// scale, where it is exact).
void Steps::scale_plane_rows(const Plane &in, const Plane &out, const PlaneScale &how,
                             unsigned slot, int r0, int r1) const {
  switch (how.kernel) {
    case Kernel::Copy:
      if (widen_)
        widen_rows(in, 1, 0, out, r0, r1);
      else
        libyuv::CopyPlane(in.row(r0), in.stride, out.row(r0), out.stride, in.width * in.bpp,
                          r1 - r0);
      break;
    case Kernel::Box3:
      if (widen_)
        box3_plane(in.row(3 * r0), in.stride, words(out, r0), out.stride, out.width, r1 - r0);
      else
        box3_plane(in.row(3 * r0), in.stride, out.row(r0), out.stride, out.width, r1 - r0);
      break;
    case Kernel::Area:
      how.area->rows(in.data, in.stride, outputs_of(out, deep_ || widen_), slot, r0, r1);
      break;
    case Kernel::Up2Cosited:
      up2_cosited_rows(in.data, in.stride, in.width, in.height, false, how.y.sub == 2, out.data,
                       out.stride, nullptr, 0, r0, r1);
      break;
    case Kernel::Libyuv:  // banded only for ARGB
      libyuv::ARGBScaleClip(in.data, in.stride, in.width, in.height, out.data, out.stride,
                            out.width, out.height, 0, r0, out.width, r1 - r0, filter_);
      break;
    default:
      break;
  }
}

// Bands of a reduction by 1.5 start on an even row (for_bands' parity).
void Steps::scale_chroma_rows(const ScalePlan &plan, unsigned slot, int r0, int r1) const {
  const Plane &c = plan.in.planes[1];
  const Plane &u = plan.out.planes[1];
  const Plane &v = plan.out.planes[2];
  const PlaneScale &how = plan.chroma;
  if (!plan.in.interleaved_chroma()) {
    scale_plane_rows(plan.chroma_from[1], u, how, slot, r0, r1);
    scale_plane_rows(plan.chroma_from[2], v, how, slot, r0, r1);
    return;
  }
  switch (how.kernel) {
    case Kernel::Box32:
    case Kernel::Box32Cosited:
      if (widen_)
        box32_uv(c.row(r0 / 2 * 3), c.stride, words(u, r0), u.stride, words(v, r0), v.stride,
                 u.width / 2, (r1 - r0 + 1) / 2, how.kernel == Kernel::Box32Cosited);
      else
        box32_uv(c.row(r0 / 2 * 3), c.stride, u.row(r0), u.stride, v.row(r0), v.stride, u.width / 2,
                 (r1 - r0 + 1) / 2, how.kernel == Kernel::Box32Cosited);
      break;
    case Kernel::Box3:
    case Kernel::Box3Cosited:
      box3_uv(c.row(3 * r0), c.stride, u.row(r0), u.stride, v.row(r0), v.stride, u.width, r1 - r0,
              how.kernel == Kernel::Box3Cosited);
      break;
    case Kernel::Area: {
      Outputs o;
      o.data = {u.data, v.data};
      o.stride = {u.stride, v.stride};
      how.area->rows(c.data, c.stride, o, slot, r0, r1);
      break;
    }
    case Kernel::Up2Cosited:
      up2_cosited_rows(c.data, c.stride, c.width, c.height, true, how.y.sub == 2, u.data, u.stride,
                       v.data, v.stride, r0, r1);
      break;
    case Kernel::Copy:
      if (widen_) {
        widen_rows(c, 2, 0, u, r0, r1);
        widen_rows(c, 2, 1, v, r0, r1);
      } else {
        libyuv::SplitUVPlane(c.row(r0), c.stride, u.row(r0), u.stride, v.row(r0), v.stride, c.width,
                             r1 - r0);
      }
      break;
    default:
      break;
  }
}

// Interleaved chroma whole; where libyuv scales it, split, then each plane.
void Steps::scale_chroma(const ScalePlan &plan) const {
  if (plan.chroma.kernel != Kernel::Libyuv)
    return scale_chroma_rows(plan, 0, 0, plan.out.planes[1].height);
  const Plane &c = plan.in.planes[1];
  const auto &from = plan.chroma_from;
  libyuv::SplitUVPlane(c.data, c.stride, from[1].data, from[1].stride, from[2].data, from[2].stride,
                       c.width, c.height);
  scale_plane(from[1], plan.out.planes[1], plan.chroma, 0);
  scale_plane(from[2], plan.out.planes[2], plan.chroma, 0);
}

void Steps::scale_plane(const Plane &in, const Plane &out, const PlaneScale &how,
                        unsigned slot) const {
  if (how.kernel != Kernel::Libyuv)
    scale_plane_rows(in, out, how, slot, 0, out.height);
  else if (deep_)  // libyuv counts 16-bit strides in words
    libyuv::ScalePlane_16(words(in, 0), in.stride / 2, in.width, in.height, words(out, 0),
                          out.stride / 2, out.width, out.height, filter_);
  else if (in.bpp == 1)
    libyuv::ScalePlane(in.data, in.stride, in.width, in.height, out.data, out.stride, out.width,
                       out.height, filter_);
  else
    libyuv::ARGBScale(in.data, in.stride, in.width, in.height, out.data, out.stride, out.width,
                      out.height, filter_);
}

// Byte by byte: split, scale each plane, merge. libyuv's "r" is byte 2.
// For the geometries where libyuv's ARGB scale is not exact.
void Steps::scale_rgb4(const Plane &in, const Plane &out, const PlaneScale &how) {
  std::array<Plane, 4> from, to;
  for (int b = 0; b < 4; ++b) {
    from[b] = new_plane(in.width, in.height, 1);
    to[b] = new_plane(out.width, out.height, 1);
  }
  for_bands(pool_, bands_, {in.height}, [&](int, int y0, int y1) {
    libyuv::SplitARGBPlane(in.row(y0), in.stride, from[2].row(y0), from[2].stride, from[1].row(y0),
                           from[1].stride, from[0].row(y0), from[0].stride, from[3].row(y0),
                           from[3].stride, in.width, y1 - y0);
  });
  auto job = [&](size_t b) { scale_plane(from[b], to[b], how, unsigned(b)); };
  jobs(4, job);
  for_bands(pool_, bands_, {out.height}, [&](int, int y0, int y1) {
    libyuv::MergeARGBPlane(to[2].row(y0), to[2].stride, to[1].row(y0), to[1].stride, to[0].row(y0),
                           to[0].stride, to[3].row(y0), to[3].stride, out.row(y0), out.stride,
                           out.width, y1 - y0);
  });
}

// Bytes 0-2 of each pixel into the R, G, B planes (byte 3, alpha or
// padding, has no place in a tensor).
void Steps::widen_rgb4_rows(const ScalePlan &plan, unsigned slot, int r0, int r1) const {
  const Plane &in = plan.in.planes[0];
  Outputs o;
  for (int b = 0; b < 3; ++b) {
    const Plane &p = plan.out.planes[size_t(plan.in.red_first ? b : 2 - b)];
    o.data[size_t(b)] = p.data, o.stride[size_t(b)] = p.stride;
  }
  if (plan.luma.kernel == Kernel::Area)
    return plan.luma.area->rows(in.data, in.stride, o, slot, r0, r1);
  for (int b = 0; b < 3; ++b)  // the same size
    widen_rows(in, 4, b, plan.out.planes[size_t(plan.in.red_first ? b : 2 - b)], r0, r1);
}

Image Steps::widened(const Image &image) {
  Image out = image;
  out.deep = true;
  out.bits = 8;
  const Plane &first = image.planes[0];
  const bool rgb4 = image.layout == Layout::Rgb4;
  if (rgb4) {
    out.n_planes = 3;
    out.red_first = true;
    out.alpha = Alpha::Opaque;
  }
  for (int i = 0; i < out.n_planes; ++i)
    out.planes[i] = new_plane(rgb4 ? first.width : image.planes[i].width,
                              rgb4 ? first.height : image.planes[i].height, 2);
  for_bands(pool_, bands_, {first.height}, [&](int, int r0, int r1) {
    for (int i = 0; i < out.n_planes; ++i) {
      if (rgb4)  // plane i (R, G, B) from byte i, or 2 - i, of each pixel
        widen_rows(first, 4, image.red_first ? i : 2 - i, out.planes[i], r0, r1);
      else
        widen_rows(image.planes[i], 1, 0, out.planes[i], r0, r1);
    }
  });
  return out;
}

// Output rows [r0, r1) of a turn: a turn only moves pixels, so a band is
// the turn of the source columns (quarter turns) or rows it comes from.
void Steps::turn_rows(const Plane &in, const Plane &out, const Plane &out_v, TurnOp op, int r0,
                      int r1, bool sixteen) const {
  const libyuv::RotationMode mode = rotation_of(op);
  const int n = r1 - r0;
  // The source of the band, and its width and height.
  const uint8_t *s = in.data;
  int w = in.width, h = in.height;
  switch (op) {
    case TurnOp::Rotate90:  // output row r is source column r, bottom up
      s = in.at(r0, 0), w = n;
      break;
    case TurnOp::Rotate270:  // output row r is source column width - 1 - r
      s = in.at(in.width - r1, 0), w = n;
      break;
    case TurnOp::Rotate180:
      s = in.row(in.height - r1), h = n;
      break;
    default:
      s = in.row(r0), h = n;
      break;
  }
  uint8_t *o = out.row(r0);
  const bool mirror = op == TurnOp::Mirror;
  if (sixteen) {
    // No 16-bit mirror in libyuv: the band upside down, turned half round.
    const Plane band{const_cast<uint8_t *>(s), in.stride, w, h, 2};
    const Plane from = mirror ? band.flipped() : band;
    libyuv::RotatePlane_16(words(from, 0), from.stride / 2, reinterpret_cast<uint16_t *>(o),
                           out.stride / 2, w, h, mirror ? libyuv::kRotate180 : mode);
    return;
  }
  switch (in.bpp) {
    case 1:
      if (mirror)
        libyuv::MirrorPlane(s, in.stride, o, out.stride, w, h);
      else
        libyuv::RotatePlane(s, in.stride, o, out.stride, w, h, mode);
      break;
    case 2:
      if (mirror)
        libyuv::MirrorUVPlane(s, in.stride, o, out.stride, w, h);
      else  // libyuv turns interleaved chroma only into two planes
        libyuv::SplitRotateUV(s, in.stride, o, out.stride, out_v.row(r0), out_v.stride, w, h, mode);
      break;
    default:
      if (mirror)
        libyuv::ARGBMirror(s, in.stride, o, out.stride, w, h);
      else
        libyuv::ARGBRotate(s, in.stride, o, out.stride, w, h, mode);
      break;
  }
}

namespace {

// Where chroma sits once turned: an axis keeps its site where it runs the
// same way and reverses it (reversed_site) where it runs backwards. A
// quarter turn right makes the source's columns rows, top to bottom, and
// its rows columns, bottom to top; a quarter turn left the other way round.
void turn_sites(Image &image, TurnOp op) {
  const int x = image.site_x, y = image.site_y;
  const Plane &luma = image.planes[0], &chroma = image.planes[1];
  const bool has_chroma = image.layout == Layout::Yuv && image.n_planes > 1;
  const int rx = has_chroma ? reversed_site(x, image.wsub, luma.width, chroma.width) : 0;
  const int ry = has_chroma ? reversed_site(y, image.hsub, luma.height, chroma.height) : 0;
  switch (op) {
    case TurnOp::Rotate90:
      std::swap(image.wsub, image.hsub);
      image.site_x = ry, image.site_y = x;
      break;
    case TurnOp::Rotate270:
      std::swap(image.wsub, image.hsub);
      image.site_x = y, image.site_y = rx;
      break;
    case TurnOp::Rotate180:
      image.site_x = rx, image.site_y = ry;
      break;
    case TurnOp::Mirror:
      image.site_x = rx;
      break;
    default:
      break;
  }
}

}  // namespace

Image Steps::turn(const Image &image, TurnOp op) {
  if (op == TurnOp::None)
    return image;
  const bool swap = op == TurnOp::Rotate90 || op == TurnOp::Rotate270;
  Image out = image;
  turn_sites(out, op);
  const bool split = image.interleaved_chroma() && op != TurnOp::Mirror;
  if (split)
    out.n_planes = 3;
  for (int i = 0; i < out.n_planes; ++i) {
    const Plane &p = image.planes[split && i == 2 ? 1 : i];
    out.planes[i] =
        new_plane(swap ? p.height : p.width, swap ? p.width : p.height, split && i > 0 ? 1 : p.bpp);
  }
  // One job per band of each source plane.
  auto job = [&](size_t k) {
    const int i = int(k / bands_), band = int(k % bands_);
    const int rows = out.planes[i].height;
    const int r0 = int(int64_t(rows) * band / bands_),
              r1 = int(int64_t(rows) * (band + 1) / bands_);
    if (r0 < r1)
      turn_rows(image.planes[i], out.planes[i], out.planes[2], op, r0, r1, image.deep);
  };
  jobs(size_t(image.n_planes) * bands_, job);
  return out;
}

Image Steps::new_like(const Image &image) {
  Image out = image;
  for (int i = 0; i < image.n_planes; ++i) {
    const Plane &p = image.planes[i];
    out.planes[i] = new_plane(p.width, p.height, p.bpp);
  }
  return out;
}

namespace {

// Rows [r0, r1) of every plane of `in` expanded into `out`.
void expand_rows(const Image &in, const Image &out, int r0, int r1) {
  for (int i = 0; i < in.n_planes; ++i) {
    const Plane &p = in.planes[i];
    const auto expand = i == 0 ? expand_luma : expand_chroma;
    for (int y = r0; y < std::min(r1, p.height); ++y)
      expand(p.row(y), out.planes[i].row(y), p.width * p.bpp);
  }
}

}  // namespace

Image Steps::expand_range(const Image &image) {
  Image out = new_like(image);
  // One job per band of each plane.
  auto job = [&](size_t k) {
    const int i = int(k / bands_), band = int(k % bands_);
    const Plane &in = image.planes[i];
    const Plane &o = out.planes[i];
    const auto expand = i == 0 ? expand_luma : expand_chroma;
    for (int y = int(int64_t(in.height) * band / bands_);
         y < int(int64_t(in.height) * (band + 1) / bands_); ++y)
      expand(in.row(y), o.row(y), in.width * in.bpp);
  };
  jobs(size_t(image.n_planes) * bands_, job);
  return out;
}

void Steps::write(const Image &image, const RowWriter &writer, int rows) {
  const size_t strip_bytes = writer.strip_bytes(image);
  uint8_t *strips = strip_bytes ? arena_.take(strip_bytes * bands_) : nullptr;
  for_bands(pool_, bands_, cut_for(writer, rows), [&](int k, int y0, int y1) {
    writer.write_rows(image, y0, y1, strips ? strips + strip_bytes * k : nullptr);
  });
}

void Steps::scale_and_write(const ScalePlan &plan, bool expand, const RowWriter &writer, int rows) {
  const Image image = expand ? new_like(plan.out) : plan.out;
  const size_t strip_bytes = writer.strip_bytes(image);
  uint8_t *strips = strip_bytes ? arena_.take(strip_bytes * bands_) : nullptr;
  const int top = params_.content.y, bottom = top + params_.content.h;
  // Bands start an even number of rows into the content: a reduction by
  // 1.5 makes rows in pairs.
  for_bands(pool_, bands_, cut_for(writer, rows), [&](int k, int y0, int y1) {
    const int r0 = std::max(y0, top) - top, r1 = std::min(y1, bottom) - top;
    if (r0 < r1) {
      scale_rows(plan, unsigned(k), r0, r1);
      if (expand)
        expand_rows(plan.out, image, r0, r1);
    }
    writer.write_rows(image, y0, y1, strips ? strips + strip_bytes * k : nullptr);
  });
}

Cut Steps::cut_for(const RowWriter &writer, int rows) const {
  const int top = params_.content.y;
  return {rows, top, top + params_.content.h, writer.writes_border_rows() ? 1 : 0};
}

}  // namespace ef::gst::cpu
