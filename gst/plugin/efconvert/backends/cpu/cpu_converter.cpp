// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend. The crop is read in place (pointers into the source;
// packed YUV and 24-bit RGB are unpacked first, as libyuv scales neither), a
// vertical flip is a negative stride, the turn and the scale run on
// whichever image is smaller, in YUV for YUV sources, and one conversion
// writes the content rectangle and its borders straight into the output.
#include "cpu_converter.hpp"

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "cpu_range.hpp"
#include "cpu_steps.hpp"
#include "cpu_tensor.hpp"

namespace ef::gst {
namespace {

using cpu::Alpha;
using cpu::Deep;
using cpu::Image;
using cpu::Layout;
using cpu::SourceFormat;
using cpu::TurnOp;
using cpu::Unpack;

// Below this many pixels (source crop + output) a frame is converted on the
// calling thread: waking helpers would cost more than they save.
constexpr int64_t kParallelPixels = 1 << 18;
// Fewer rows than this a band would spend more on waking than on work.
constexpr int kMinBandRows = 8;

struct Input {
  GstVideoFormat format;
  SourceFormat read;
};

// A source of more than 8 bits a sample (cpu_deep.hpp).
constexpr SourceFormat deep_yuv(Deep deep, int bits, int wsub, int hsub) {
  return {.layout = Layout::Yuv,
          .wsub = wsub,
          .hsub = hsub,
          .interleaved = deep != Deep::Lsb,
          .deep = deep,
          .bits = bits};
}

// The formats the CPU backend reads, in the order its caps prefer them
// (cpu_table.cpp makes its table of them).
constexpr Input kInputs[] = {
    {GST_VIDEO_FORMAT_NV12, {Layout::Yuv, Unpack::None, 1, 1, true}},
    {GST_VIDEO_FORMAT_I420, {Layout::Yuv, Unpack::None, 1, 1}},
    {GST_VIDEO_FORMAT_YUY2, {Layout::Yuv, Unpack::Yuy2, 1, 0}},
    {GST_VIDEO_FORMAT_UYVY, {Layout::Yuv, Unpack::Uyvy, 1, 0}},
    {GST_VIDEO_FORMAT_RGBA, {Layout::Rgb4, Unpack::None, 0, 0, false, true, Alpha::Real}},
    {GST_VIDEO_FORMAT_BGRA, {Layout::Rgb4, Unpack::None, 0, 0, false, false, Alpha::Real}},
    {GST_VIDEO_FORMAT_RGBx, {Layout::Rgb4, Unpack::None, 0, 0, false, true, Alpha::Padding}},
    {GST_VIDEO_FORMAT_BGRx, {Layout::Rgb4, Unpack::None, 0, 0, false, false, Alpha::Padding}},
    {GST_VIDEO_FORMAT_RGB, {Layout::Rgb4, Unpack::Rgb24, 0, 0, false, true}},
    {GST_VIDEO_FORMAT_BGR, {Layout::Rgb4, Unpack::Rgb24, 0, 0, false, false}},
    {GST_VIDEO_FORMAT_GRAY8, {Layout::Gray}},
    {GST_VIDEO_FORMAT_YV12, {Layout::Yuv, Unpack::None, 1, 1}},
    {GST_VIDEO_FORMAT_Y42B, {Layout::Yuv, Unpack::None, 1, 0}},
    {GST_VIDEO_FORMAT_Y444, {Layout::Yuv, Unpack::None, 0, 0}},
    // What HEVC Main10, VP9 profile 2 and AV1 decoders give (NVDEC and VA
    // P010, avdec and libvpx I420_10LE, Rockchip's NV12_10LE40), and
    // their 12-bit, 4:2:2 and 4:4:4 kin.
    {GST_VIDEO_FORMAT_P010_10LE, deep_yuv(Deep::Msb, 10, 1, 1)},
    {GST_VIDEO_FORMAT_I420_10LE, deep_yuv(Deep::Lsb, 10, 1, 1)},
    {GST_VIDEO_FORMAT_NV12_10LE40, deep_yuv(Deep::Packed40, 10, 1, 1)},
    {GST_VIDEO_FORMAT_P012_LE, deep_yuv(Deep::Msb, 12, 1, 1)},
    {GST_VIDEO_FORMAT_P016_LE, deep_yuv(Deep::Msb, 16, 1, 1)},
    {GST_VIDEO_FORMAT_I420_12LE, deep_yuv(Deep::Lsb, 12, 1, 1)},
    {GST_VIDEO_FORMAT_I422_10LE, deep_yuv(Deep::Lsb, 10, 1, 0)},
    {GST_VIDEO_FORMAT_I422_12LE, deep_yuv(Deep::Lsb, 12, 1, 0)},
    {GST_VIDEO_FORMAT_Y444_10LE, deep_yuv(Deep::Lsb, 10, 0, 0)},
    {GST_VIDEO_FORMAT_Y444_12LE, deep_yuv(Deep::Lsb, 12, 0, 0)},
    {GST_VIDEO_FORMAT_Y444_16LE, deep_yuv(Deep::Lsb, 16, 0, 0)},
};

const SourceFormat *source_format_of(GstVideoFormat format) {
  for (const Input &input : kInputs)
    if (input.format == format)
      return &input.read;
  return nullptr;
}

// How YUV becomes RGB: libyuv's constants, and whether the bytes are
// expanded to full range first (see cpu_range.hpp); a deep source's
// exact matrix (cpu_deep.hpp).
struct Decode {
  cpu::YuvMatrix matrix;
  bool expand = false;
};

// Limited range through libyuv's table with its blue coefficient restored,
// else as `fallback` says.
Decode exact_or(GstVideoColorMatrix matrix, Decode fallback) {
  if (const cpu::YuvMatrix *exact = cpu::exact_limited_range(matrix))
    return Decode{*exact};
  return fallback;
}

Result<Decode> decode_for(GstVideoColorMatrix matrix, GstVideoColorRange range) {
  const bool full = range == GST_VIDEO_COLOR_RANGE_0_255;
  switch (matrix) {
    case GST_VIDEO_COLOR_MATRIX_UNKNOWN:
    case GST_VIDEO_COLOR_MATRIX_FCC:  // within 1% of BT.601
    case GST_VIDEO_COLOR_MATRIX_BT601:
      if (full)
        return Decode{{&libyuv::kYuvJPEGConstants, &libyuv::kYvuJPEGConstants}};
      // libyuv's own table is within 1% here: not worth an expansion pass.
      return exact_or(GST_VIDEO_COLOR_MATRIX_BT601,
                      {{&libyuv::kYuvI601Constants, &libyuv::kYvuI601Constants}});
    case GST_VIDEO_COLOR_MATRIX_SMPTE240M:  // within 1% of BT.709
    case GST_VIDEO_COLOR_MATRIX_BT709:
      if (full)
        return Decode{{&libyuv::kYuvF709Constants, &libyuv::kYvuF709Constants}};
      return exact_or(GST_VIDEO_COLOR_MATRIX_BT709,
                      {{&libyuv::kYuvF709Constants, &libyuv::kYvuF709Constants}, true});
    case GST_VIDEO_COLOR_MATRIX_BT2020:
      if (full)
        return Decode{{&libyuv::kYuvV2020Constants, &libyuv::kYvuV2020Constants}};
      return exact_or(GST_VIDEO_COLOR_MATRIX_BT2020,
                      {{&libyuv::kYuvV2020Constants, &libyuv::kYvuV2020Constants}, true});
    default:
      return Error{EINVAL,
                   "no YUV to RGB conversion for colour matrix " + std::to_string(int(matrix))};
  }
}

// Every direction is an optional vertical flip of the source (free: a
// negative stride) followed by at most one libyuv turn. The transpose is a
// flipped source turned right; the other diagonal, turned left.
struct Turn {
  GstVideoOrientationMethod direction;
  bool vflip;
  TurnOp op;
};

constexpr Turn kTurns[] = {
    {GST_VIDEO_ORIENTATION_IDENTITY, false, TurnOp::None},
    {GST_VIDEO_ORIENTATION_90R, false, TurnOp::Rotate90},
    {GST_VIDEO_ORIENTATION_180, false, TurnOp::Rotate180},
    {GST_VIDEO_ORIENTATION_90L, false, TurnOp::Rotate270},
    {GST_VIDEO_ORIENTATION_HORIZ, false, TurnOp::Mirror},
    {GST_VIDEO_ORIENTATION_VERT, true, TurnOp::None},
    {GST_VIDEO_ORIENTATION_UL_LR, true, TurnOp::Rotate90},
    {GST_VIDEO_ORIENTATION_UR_LL, true, TurnOp::Rotate270},
};

const Turn *turn_for(GstVideoOrientationMethod direction) {
  for (const Turn &turn : kTurns)
    if (turn.direction == direction)
      return &turn;
  return nullptr;  // auto and custom are the element's to resolve
}

bool inside(const GstVideoRectangle &r, int w, int h) {
  return r.w > 0 && r.h > 0 && r.x >= 0 && r.y >= 0 && r.x + r.w <= w && r.y + r.h <= h;
}

std::string describe(const GstVideoRectangle &r) {
  return std::to_string(r.w) + "x" + std::to_string(r.h) + "+" + std::to_string(r.x) + "+" +
         std::to_string(r.y);
}

Result<void> check_geometry(const GstVideoFrame &src, int width, int height,
                            const ConvertParams &params) {
  if (!inside(params.crop, GST_VIDEO_FRAME_WIDTH(&src), GST_VIDEO_FRAME_HEIGHT(&src)))
    return Error{EINVAL, "crop " + describe(params.crop) + " is not inside the source"};
  if (!inside(params.content, width, height))
    return Error{EINVAL, "content " + describe(params.content) + " is not inside the output"};
  return {};
}

int64_t area(const GstVideoRectangle &r) {
  return int64_t(r.w) * r.h;
}

// Scale, turn and range expansion, in the order that does the turn and the
// expansion on the smaller image, then the write. Scaling leaves YUV at
// 4:4:4, so a turn after it has no subsampled axis to swap. Without a turn,
// a scale whose bands are exact runs in one round of bands with the
// expansion and the write.
void transform_and_write(cpu::Steps &steps, Image image, const ConvertParams &p, const Turn &turn,
                         bool expand, const cpu::RowWriter &writer, int rows) {
  const bool swap = direction_swaps_axes(p.direction);
  if (area(p.content) < area(p.crop)) {
    const cpu::ScalePlan plan =
        steps.plan_scale(image, swap ? p.content.h : p.content.w, swap ? p.content.w : p.content.h);
    if (turn.op == TurnOp::None && plan.banded)
      return steps.scale_and_write(plan, expand, writer, rows);
    image = steps.turn(steps.scale(plan), turn.op);
    if (expand)
      image = steps.expand_range(image);
    return steps.write(image, writer, rows);
  }
  if (expand)
    image = steps.expand_range(image);
  image = steps.turn(image, turn.op);
  const cpu::ScalePlan plan = steps.plan_scale(image, p.content.w, p.content.h);
  if (plan.banded)
    return steps.scale_and_write(plan, false, writer, rows);
  steps.write(steps.scale(plan), writer, rows);
}

// How many bands a frame is cut into: one where waking helpers would cost
// more than they save (a small frame, a pool of one), else one per thread
// while bands keep a few rows each.
unsigned bands_for(int width, int height, const ConvertParams &params, unsigned threads) {
  const int64_t pixels = area(params.crop) + int64_t(width) * height;
  if (threads <= 1 || pixels < kParallelPixels)
    return 1;
  const int rows = std::min(height, params.content.h);
  return std::clamp(unsigned(rows / kMinBandRows), 1u, threads);
}

// Releases the arena's blocks for the next frame however the conversion ends.
struct ArenaFrame {
  cpu::Arena &arena;
  ~ArenaFrame() { arena.reset(); }
};

}  // namespace

bool cpu_supports_input(GstVideoFormat format) {
  return source_format_of(format) != nullptr;
}

bool cpu_supports_output(GstVideoFormat format) {
  cpu::DstKind kind;
  return cpu::dst_kind_of(format, kind);
}

std::vector<GstVideoFormat> cpu_input_formats() {
  std::vector<GstVideoFormat> formats;
  for (const Input &input : kInputs)
    formats.push_back(input.format);
  return formats;
}

std::vector<GstVideoFormat> cpu_output_formats() {
  return cpu::dst_formats();
}

namespace {

// What the last step writes into, as the steps before it see it.
struct Destination {
  const char *name;  // for messages
  cpu::DstKind kind;
  int width, height;
  // Takes values between the 8-bit levels (a float tensor): an 8-bit
  // source is scaled into words and made colour in float, as a deep one.
  bool fine = false;
};

// The conversion into `dst`, whose writer `make_writer(matrix, arena)`
// makes once the source's colours are known.
template <typename MakeWriter>
Result<void> convert_into(const GstVideoFrame &src, const Destination &dst,
                          const ConvertParams &params, cpu::Pool &pool, MakeWriter make_writer) {
  const SourceFormat *read = source_format_of(GST_VIDEO_FRAME_FORMAT(&src));
  if (!read)
    return Error{EINVAL, std::string("no CPU conversion from ") +
                             gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(&src)) + " to " +
                             dst.name};
  const Turn *turn = turn_for(params.direction);
  if (!turn)
    return Error{EINVAL, "video-direction auto and custom must be resolved before converting"};
  if (auto checked = check_geometry(src, dst.width, dst.height, params); !checked)
    return checked;
  // GstVideoConverter gives a BT.601 source's Y as it is for GRAY8 (range
  // included) and any other matrix's luma through RGB; so do we, to match.
  const bool luma_only = read->layout == Layout::Yuv && dst.kind == cpu::DstKind::Gray &&
                         params.matrix == GST_VIDEO_COLOR_MATRIX_BT601;
  Decode decode;
  const bool words = read->deep != Deep::None || dst.fine;  // colour from 16-bit samples
  if (read->layout == Layout::Yuv && !luma_only) {
    auto found = decode_for(params.matrix, params.range);
    if (!found)
      return found.error();
    decode = *found;
    if (words)
      decode = {{.deep = cpu::deep_matrix(params.matrix, params.range, read->bits)}};
  }
  cpu::Arena &arena = cpu::thread_arena();
  const ArenaFrame frame{arena};
  cpu::Steps steps(params, pool, bands_for(dst.width, dst.height, params, pool.threads()), arena,
                   dst.fine);
  Image image = steps.load(src, *read, luma_only);
  if (turn->vflip) {
    if (image.n_planes > 1)
      image.site_y = cpu::reversed_site(image.site_y, image.hsub, image.planes[0].height,
                                        image.planes[1].height);
    for (int i = 0; i < image.n_planes; ++i)
      image.planes[i] = image.planes[i].flipped();
  }
  const auto writer = make_writer(decode.matrix, arena);
  transform_and_write(steps, image, params, *turn, decode.expand, writer, dst.height);
  return {};
}

// The pool of `threads` the calling thread keeps for the overloads that
// take a count.
cpu::Pool &thread_pool(unsigned threads) {
  thread_local std::unique_ptr<cpu::Pool> pool;
  if (!pool || pool->threads() != std::max(threads, 1u))
    pool = std::make_unique<cpu::Pool>(threads);
  return *pool;
}

}  // namespace

Result<void> cpu_convert(const GstVideoFrame &src, GstVideoFrame &dst, const ConvertParams &params,
                         cpu::Pool &pool, bool border_rows_in_place) {
  cpu::DstKind kind;
  if (!cpu::dst_kind_of(GST_VIDEO_FRAME_FORMAT(&dst), kind))
    return Error{EINVAL, std::string("no CPU conversion from ") +
                             gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(&src)) + " to " +
                             gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(&dst))};
  const Destination d{gst_video_format_to_string(GST_VIDEO_FRAME_FORMAT(&dst)), kind,
                      GST_VIDEO_FRAME_WIDTH(&dst), GST_VIDEO_FRAME_HEIGHT(&dst)};
  return convert_into(src, d, params, pool, [&](cpu::YuvMatrix matrix, cpu::Arena &) {
    return cpu::Writer(dst, params.content, params.fill, matrix, border_rows_in_place);
  });
}

Result<void> cpu_convert(const GstVideoFrame &src, const cpu::TensorTarget &dst,
                         const ConvertParams &params, const cpu::TensorKernel &kernel,
                         cpu::Pool &pool) {
  const TensorSpec &spec = dst.spec;
  if ((spec.channels != 1 && spec.channels != 3) || spec.type != kernel.type())
    return Error{EINVAL, "no CPU conversion to " + describe(spec)};
  cpu::DstKind kind;
  cpu::dst_kind_of(cpu::TensorWriter::staging_format(spec, params.norm.bgr), kind);
  const bool floats = spec.type == TensorType::Float32 || spec.type == TensorType::Float16;
  const Destination d{"tensors", kind, spec.width, spec.height, floats};
  return convert_into(src, d, params, pool, [&](cpu::YuvMatrix matrix, cpu::Arena &arena) {
    return cpu::TensorWriter(dst, params, matrix, kernel, arena);
  });
}

Result<void> cpu_convert(const GstVideoFrame &src, const cpu::TensorTarget &dst,
                         const ConvertParams &params, unsigned threads) {
  const cpu::TensorKernel kernel(dst.spec.type, params.norm, dst.spec.channels, dst.spec.size());
  return cpu_convert(src, dst, params, kernel, thread_pool(threads));
}

Result<void> cpu_convert(const GstVideoFrame &src, GstVideoFrame &dst, const ConvertParams &params,
                         unsigned threads) {
  return cpu_convert(src, dst, params, thread_pool(threads));
}

}  // namespace ef::gst
