// SPDX-License-Identifier: LGPL-2.1-or-later
#include "cpu_steps.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "cpu_box.hpp"
#include "cpu_range.hpp"

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

}  // namespace

Steps::Steps(const ConvertParams &params, unsigned workers, Arena &arena)
    : params_(params),
      workers_(workers),
      arena_(arena),
      // libyuv's box filter is its bilinear one where neither side shrinks
      // by 2 or more; beyond, it averages every source pixel (bilinear would
      // skip some: aliasing).
      filter_(params.method == ScaleMethod::Nearest ? libyuv::kFilterNone : libyuv::kFilterBox) {}

Plane Steps::new_plane(int w, int h, int bpp) {
  const int stride = (w * bpp + 63) & ~63;
  return {arena_.take(size_t(stride) * h), stride, w, h, bpp};
}

Image Steps::load(const GstVideoFrame &src, const SourceFormat &f, bool luma_only) {
  const GstVideoRectangle &c = params_.crop;
  // x and y down to the chroma grid, as GstVideoConverter does.
  const int x = c.x & ~((1 << f.wsub) - 1);
  const int y = c.y & ~((1 << f.hsub) - 1);
  Image image;
  if (f.unpack != Unpack::None) {
    image = unpack(src, f, x, y);
  } else {
    image.layout = f.layout;
    image.planes[0] = plane_view(src, 0, x, y, c.w, c.h, f.layout == Layout::Rgb4 ? 4 : 1);
    if (f.layout == Layout::Yuv) {
      const int cx = x >> f.wsub, cy = y >> f.hsub;
      const int cw = subsampled(c.w, f.wsub), ch = subsampled(c.h, f.hsub);
      image.n_planes = f.interleaved ? 2 : 3;
      if (f.interleaved)
        image.planes[1] = plane_view(src, 1, cx, cy, cw, ch, 2);
      else  // by component: YV12 has V before U
        for (guint comp : {1u, 2u})
          image.planes[comp] =
              plane_view(src, GST_VIDEO_FRAME_COMP_PLANE(&src, comp), cx, cy, cw, ch, 1);
    }
  }
  image.wsub = f.wsub;
  image.hsub = f.hsub;
  image.red_first = f.red_first;
  image.alpha = f.alpha;
  if (luma_only) {
    image.layout = Layout::Gray;
    image.n_planes = 1;
  }
  return image;
}

Image Steps::unpack(const GstVideoFrame &src, const SourceFormat &f, int x, int y) {
  const GstVideoRectangle &c = params_.crop;
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
    for_bands(workers_, c.h, 0, [&](int, int y0, int y1) {
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
  for_bands(workers_, c.h, 0, [&](int, int y0, int y1) {
    to_i422(first + ptrdiff_t(y0) * stride, stride, p[0].row(y0), p[0].stride, p[1].row(y0),
            p[1].stride, p[2].row(y0), p[2].stride, c.w, y1 - y0);
  });
  return image;
}

bool Steps::exact(const Plane &in, int w, int h) const {
  return in.bpp == 1 || scales_exactly(in.bpp, in.width, in.height, w, h, filter_);
}

// Boxes beyond what libyuv's box keeps exact (kLibyuvBoxMaxArea) are
// averaged by box_plane_area(): 320x240 to 2x2 came out 12% dark.
bool Steps::large_box(const Plane &in, const Plane &out) const {
  return filter_ == libyuv::kFilterBox && in.bpp == 1 &&
         int64_t(in.width) * in.height >
             int64_t(kLibyuvBoxMaxArea) * int64_t(out.width) * int64_t(out.height);
}

bool Steps::box3(const Plane &in, int w, int h) const {
  return filter_ != libyuv::kFilterNone && in.width == 3 * w && in.height == 3 * h;
}

bool Steps::box32(const Plane &in, int w, int h) const {
  return filter_ != libyuv::kFilterNone && in.bpp == 2 && w % 2 == 0 && h % 2 == 0 &&
         2 * in.width == 3 * w && 2 * in.height == 3 * h;
}

Image Steps::scale(const Image &image, int w, int h) {
  Image out = image;
  const Plane &y = image.planes[0];
  const bool luma = y.width != w || y.height != h;
  if (luma)
    out.planes[0] = new_plane(w, h, y.bpp);
  if (image.layout == Layout::Rgb4) {
    if (luma)
      scale_rgb4(y, out.planes[0]);
    return out;
  }
  std::array<Plane, 3> chroma_from{};
  const bool chroma = image.layout == Layout::Yuv && plan_chroma(image, w, h, out, chroma_from);
  // Luma on the calling thread while a helper does the chroma.
  auto job = [&](size_t k) {
    if (k == 0 && luma)
      scale_plane(y, out.planes[0]);
    else
      scale_chroma(image, out, chroma_from);
  };
  run_jobs(workers_, size_t(luma) + size_t(chroma), job);
  return out;
}

// Every output pixel gets chroma of its own: U and V planes at the luma's
// size (4:4:4), so colour edges are as sharp as the output allows and not
// on a 2-pixel grid. Planes are taken here, on the calling thread (the
// arena is not shared); scale_chroma() fills them.
bool Steps::plan_chroma(const Image &image, int w, int h, Image &out, std::array<Plane, 3> &from) {
  out.wsub = out.hsub = 0;
  out.n_planes = 3;
  const Plane &c = image.planes[1];
  from = image.planes;
  if (c.width == w && c.height == h && !image.interleaved_chroma())
    return false;
  out.planes[1] = new_plane(w, h, 1);
  out.planes[2] = new_plane(w, h, 1);
  if (image.interleaved_chroma() && !box3(c, w, h) && !box32(c, w, h)) {
    const bool same = c.width == w && c.height == h;  // split straight into the output
    from[1] = same ? out.planes[1] : new_plane(c.width, c.height, 1);
    from[2] = same ? out.planes[2] : new_plane(c.width, c.height, 1);
  }
  return true;
}

// 1080p NV12 to 640x360 (chroma 1.5 times the output) and to 320x180 (3
// times) have kernels of their own (cpu_box.hpp): libyuv's bilinear from
// 1.5x runs in C at ten times the cost, and its box from 3x at four times.
void Steps::scale_chroma(const Image &image, const Image &out,
                         const std::array<Plane, 3> &from) const {
  const Plane &c = image.planes[1];
  const Plane &u = out.planes[1];
  const Plane &v = out.planes[2];
  if (image.interleaved_chroma() && box32(c, u.width, u.height)) {
    box32_uv(c.data, c.stride, u.data, u.stride, v.data, v.stride, u.width / 2, u.height / 2);
    return;
  }
  if (image.interleaved_chroma() && box3(c, u.width, u.height)) {
    box3_uv(c.data, c.stride, u.data, u.stride, v.data, v.stride, u.width, u.height);
    return;
  }
  if (image.interleaved_chroma())
    libyuv::SplitUVPlane(c.data, c.stride, from[1].data, from[1].stride, from[2].data,
                         from[2].stride, c.width, c.height);
  scale_plane(from[1], u);
  scale_plane(from[2], v);
}

void Steps::scale_plane(const Plane &in, const Plane &out) const {
  if (in.data == out.data)
    return;
  if (in.width == out.width && in.height == out.height)
    libyuv::CopyPlane(in.data, in.stride, out.data, out.stride, in.width, in.height);
  else if (in.bpp == 1 && box3(in, out.width, out.height))
    box3_plane(in.data, in.stride, out.data, out.stride, out.width, out.height);
  else if (large_box(in, out))
    box_plane_area(in.data, in.stride, in.width, in.height, out.data, out.stride, out.width,
                   out.height);
  else if (in.bpp == 1)
    libyuv::ScalePlane(in.data, in.stride, in.width, in.height, out.data, out.stride, out.width,
                       out.height, filter_);
  else
    libyuv::ARGBScale(in.data, in.stride, in.width, in.height, out.data, out.stride, out.width,
                      out.height, filter_);
}

void Steps::scale_rgb4(const Plane &in, const Plane &out) {
  if (exact(in, out.width, out.height)) {
    // Bands of rows, each clipped from libyuv's scale of the whole.
    for_bands(workers_, out.height, 0, [&](int, int y0, int y1) {
      libyuv::ARGBScaleClip(in.data, in.stride, in.width, in.height, out.data, out.stride,
                            out.width, out.height, 0, y0, out.width, y1 - y0, filter_);
    });
    return;
  }
  // Byte by byte: split, scale each plane, merge. libyuv's "r" is byte 2.
  std::array<Plane, 4> from, to;
  for (int b = 0; b < 4; ++b) {
    from[b] = new_plane(in.width, in.height, 1);
    to[b] = new_plane(out.width, out.height, 1);
  }
  for_bands(workers_, in.height, 0, [&](int, int y0, int y1) {
    libyuv::SplitARGBPlane(in.row(y0), in.stride, from[2].row(y0), from[2].stride, from[1].row(y0),
                           from[1].stride, from[0].row(y0), from[0].stride, from[3].row(y0),
                           from[3].stride, in.width, y1 - y0);
  });
  auto job = [&](size_t b) { scale_plane(from[b], to[b]); };
  run_jobs(workers_, 4, job);
  for_bands(workers_, out.height, 0, [&](int, int y0, int y1) {
    libyuv::MergeARGBPlane(to[2].row(y0), to[2].stride, to[1].row(y0), to[1].stride, to[0].row(y0),
                           to[0].stride, to[3].row(y0), to[3].stride, out.row(y0), out.stride,
                           out.width, y1 - y0);
  });
}

void Steps::turn_plane(const Plane &in, const Plane &out, const Plane &out_v, TurnOp op) const {
  const libyuv::RotationMode mode = rotation_of(op);
  const bool mirror = op == TurnOp::Mirror;
  switch (in.bpp) {
    case 1:
      if (mirror)
        libyuv::MirrorPlane(in.data, in.stride, out.data, out.stride, in.width, in.height);
      else
        libyuv::RotatePlane(in.data, in.stride, out.data, out.stride, in.width, in.height, mode);
      break;
    case 2:
      if (mirror)
        libyuv::MirrorUVPlane(in.data, in.stride, out.data, out.stride, in.width, in.height);
      else  // libyuv turns interleaved chroma only into two planes
        libyuv::SplitRotateUV(in.data, in.stride, out.data, out.stride, out_v.data, out_v.stride,
                              in.width, in.height, mode);
      break;
    default:
      if (mirror)
        libyuv::ARGBMirror(in.data, in.stride, out.data, out.stride, in.width, in.height);
      else
        libyuv::ARGBRotate(in.data, in.stride, out.data, out.stride, in.width, in.height, mode);
      break;
  }
}

Image Steps::turn(const Image &image, TurnOp op) {
  if (op == TurnOp::None)
    return image;
  const bool swap = op == TurnOp::Rotate90 || op == TurnOp::Rotate270;
  Image out = image;
  if (swap)
    std::swap(out.wsub, out.hsub);
  const bool split = image.interleaved_chroma() && op != TurnOp::Mirror;
  if (split)
    out.n_planes = 3;
  for (int i = 0; i < out.n_planes; ++i) {
    const Plane &p = image.planes[split && i == 2 ? 1 : i];
    out.planes[i] =
        new_plane(swap ? p.height : p.width, swap ? p.width : p.height, split && i > 0 ? 1 : p.bpp);
  }
  auto job = [&](size_t i) { turn_plane(image.planes[i], out.planes[i], out.planes[2], op); };
  run_jobs(workers_, image.n_planes, job);
  return out;
}

Image Steps::expand_range(const Image &image) {
  Image out = image;
  for (int i = 0; i < image.n_planes; ++i) {
    const Plane &p = image.planes[i];
    out.planes[i] = new_plane(p.width, p.height, p.bpp);
  }
  // One job per band of each plane.
  auto job = [&](size_t k) {
    const int i = int(k / workers_), band = int(k % workers_);
    const Plane &in = image.planes[i];
    const Plane &o = out.planes[i];
    const auto expand = i == 0 ? expand_luma : expand_chroma;
    for (int y = in.height * band / int(workers_); y < in.height * (band + 1) / int(workers_); ++y)
      expand(in.row(y), o.row(y), in.width * in.bpp);
  };
  run_jobs(workers_, size_t(image.n_planes) * workers_, job);
  return out;
}

void Steps::write(const Image &image, GstVideoFrame &dst, YuvMatrix matrix) {
  const Writer writer(dst, params_.content, params_.fill, matrix);
  const size_t strip_bytes = writer.strip_bytes(image);
  uint8_t *strips = strip_bytes ? arena_.take(strip_bytes * workers_) : nullptr;
  for_bands(workers_, GST_VIDEO_FRAME_HEIGHT(&dst), params_.content.y, [&](int k, int y0, int y1) {
    writer.write_rows(image, y0, y1, strips ? strips + strip_bytes * k : nullptr);
  });
}

}  // namespace ef::gst::cpu
