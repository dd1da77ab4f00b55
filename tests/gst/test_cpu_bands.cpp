// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's CPU backend cut into bands of rows: every band count gives the
// bytes of the single-threaded conversion, for every format pair, odd sizes,
// crops, the eight directions, letterbox borders, the box kernels of 3 and
// 1.5, the exact footprint, cosited chroma, strong reductions and
// upscaling. The source is a pattern with a step every few pixels, so a
// band that read a neighbour's source rows, or wrote one row too many or
// too few, changes bytes. Where sweeps are sampled (sanitizers, the Debian
// legs: sanitized.hpp), one case in five, and 7 bands against one.
//
// The standard headers come first: Check's fail() macro breaks <ios>.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "efconvert/plan/convert_params.hpp"
#include "efconvert/backends/cpu/cpu_converter.hpp"
#include "frames.hpp"
#include "sentinel_frame.hpp"
#include "sanitized.hpp"

using namespace ef::gst;

namespace {

// Every format the backend says it reads, or writes: the pairs follow it.
std::vector<GstVideoFormat> formats(bool (*supports)(GstVideoFormat)) {
  guint n = 0;
  const GstVideoFormat *all = gst_video_formats_raw(&n);
  std::vector<GstVideoFormat> found;
  for (guint i = 0; i < n; ++i)
    if (supports(all[i]))
      found.push_back(all[i]);
  return found;
}

// The eight directions that are not auto or custom.
constexpr int kDirections = GST_VIDEO_ORIENTATION_UR_LL + 1;

// Band counts compared with one band; 7 leaves bands of unequal rows (the
// one kept where sweeps are sampled: sanitized.hpp).
const std::vector<unsigned> kThreads =
    ef::test::sweeps_sampled() ? std::vector<unsigned>{7} : std::vector<unsigned>{2, 3, 4, 7};

using Frame = ef::test::SentinelFrame;

struct Geometry {
  const char *what;
  int in_w, in_h;
  GstVideoRectangle crop;  // w == 0: none
  int out_w, out_h;
  bool letterbox;
};

// Each is large enough to be cut (the converter keeps small frames whole)
// and has at least 7 * 8 content rows, so 7 bands are 7.
constexpr Geometry kGeometries[] = {
    // The box of 3 for luma and of 1.5 for NV12's chroma (cosited across),
    // letterboxed: the scale, the write and the borders in one round of
    // bands.
    {"box 3 and 1.5, letterbox", 1920, 1080, {}, 640, 640, true},
    // Luma by 3, odd rows and columns; chroma by the exact footprint (its
    // last sample half outside).
    {"box 3, odd", 1923, 1083, {}, 641, 361, false},
    // Luma by 6, chroma by 3, cosited: the exact footprint.
    {"box 6 and 3", 1926, 1086, {}, 321, 181, false},
    // The exact footprint (cpu_area): boxes of 10.8 pixels, odd ratios,
    // chroma cosited across (sources over 576 rows: chroma-site mpeg2).
    {"strong reduction", 1920, 1080, {}, 100, 100, true},
    {"odd reduction, letterbox", 1281, 721, {}, 417, 415, true},
    {"crop", 1001, 703, {13, 17, 777, 555}, 301, 401, true},
    {"same size", 723, 487, {}, 723, 487, false},
    // Cosited chroma to twice its size (cpu_up2), and enlarged (cpu_area's
    // linear interpolation).
    {"same size, cosited", 1280, 720, {}, 1280, 720, false},
    {"upscale, cosited", 640, 600, {}, 1001, 1199, true},
    {"upscale", 333, 251, {}, 1001, 599, true},
};

const char *name(GstVideoFormat format) {
  return gst_video_format_to_string(format);
}

std::unique_ptr<Frame> source(GstVideoFormat format, int w, int h) {
  auto frame = std::make_unique<Frame>(format, w, h, 0);
  ef::test::fill_frame(&frame->frame, 7);
  return frame;
}

std::unique_ptr<Frame> convert(const Frame &src, const ConvertParams &p, GstVideoFormat format,
                               int w, int h, unsigned threads) {
  auto out = std::make_unique<Frame>(format, w, h, 0xa5);
  auto done = cpu_convert(src.frame, out->frame, p, threads);
  fail_unless(done.ok(), "%s", done.ok() ? "" : done.error().message.c_str());
  return out;
}

// The first byte where two frames differ, as "plane P row R byte B", or "".
std::string first_difference(const Frame &a, const Frame &b) {
  for (guint plane = 0; plane < GST_VIDEO_INFO_N_PLANES(&a.info); ++plane) {
    const int stride = GST_VIDEO_INFO_PLANE_STRIDE(&a.info, plane);
    const size_t offset = GST_VIDEO_INFO_PLANE_OFFSET(&a.info, plane);
    const size_t end = plane + 1 < GST_VIDEO_INFO_N_PLANES(&a.info)
                           ? GST_VIDEO_INFO_PLANE_OFFSET(&a.info, plane + 1)
                           : a.info.size;
    for (size_t i = offset; i < end; ++i)
      if (a.bytes()[i] != b.bytes()[i])
        return "plane " + std::to_string(plane) + " row " + std::to_string((i - offset) / stride) +
               " byte " + std::to_string((i - offset) % stride) + ": " +
               std::to_string(a.bytes()[i]) + " with one band, " + std::to_string(b.bytes()[i]);
  }
  return "";
}

// Converts src as g says with each band count and compares with one band.
// Returns the cases compared.
int compare(const Frame &src, const Geometry &g, GstVideoFormat out,
            GstVideoOrientationMethod direction) {
  auto planned = plan_conversion(g.in_w, g.in_h, g.crop, g.out_w, g.out_h, g.letterbox, direction);
  fail_unless(planned.ok(), "%s", planned.ok() ? "" : planned.error().message.c_str());
  ConvertParams p = *planned;
  p.fill = {30, 200, 90, 160};
  p.matrix = src.info.colorimetry.matrix;
  p.range = src.info.colorimetry.range;
  p.chroma_site = src.info.chroma_site;
  const auto one = convert(src, p, out, g.out_w, g.out_h, 1);
  for (unsigned threads : kThreads) {
    const auto many = convert(src, p, out, g.out_w, g.out_h, threads);
    const std::string diff = first_difference(*one, *many);
    fail_unless(diff.empty(), "%s -> %s, %s, direction %d, %u threads: %s",
                name(GST_VIDEO_INFO_FORMAT(&src.info)), name(out), g.what, int(direction), threads,
                diff.c_str());
  }
  return int(kThreads.size());
}

}  // namespace

GST_START_TEST(test_every_pair_every_geometry) {
  int cases = 0;
  const ef::test::OneIn sample(5);
  const auto ins = formats(cpu_supports_input), outs = formats(cpu_supports_output);
  for (size_t g = 0; g < std::size(kGeometries); ++g)
    for (size_t i = 0; i < ins.size(); ++i) {
      const auto src = source(ins[i], kGeometries[g].in_w, kGeometries[g].in_h);
      for (size_t o = 0; o < outs.size(); ++o)
        if (sample.take(g, i, o))
          cases += compare(*src, kGeometries[g], outs[o], GST_VIDEO_ORIENTATION_IDENTITY);
    }
  const int pairs = 14 * 9 * int(std::size(kGeometries)) / int(sample.n());
  fail_unless(cases >= pairs * int(kThreads.size()), "%d band counts compared", cases);
  std::printf("every pair, every geometry: %d band counts compared, all byte for byte\n", cases);
}
GST_END_TEST;

// The inputs the directions run on: every 8-bit one, and of the deep ones
// (whose rows reach the bands through the same turns, a plane of words
// instead of bytes) a two-plane and a three-plane one; every deep input
// runs every geometry above. All of them here took the test past its
// time limit on a loaded 2-core machine.
static std::vector<GstVideoFormat> direction_inputs() {
  std::vector<GstVideoFormat> kept;
  for (GstVideoFormat f : formats(cpu_supports_input))
    if (GST_VIDEO_FORMAT_INFO_DEPTH(gst_video_format_get_info(f), 0) <= 8 ||
        f == GST_VIDEO_FORMAT_P010_10LE || f == GST_VIDEO_FORMAT_I420_10LE)
      kept.push_back(f);
  return kept;
}

// Turns cut the output's rows from the source's columns: every direction
// on the geometries that crop, reduce and enlarge.
GST_START_TEST(test_directions) {
  const Geometry geometries[] = {kGeometries[0], kGeometries[2], kGeometries[5], kGeometries[7],
                                 kGeometries[9]};
  int cases = 0;
  // Sampled: each input, output and direction at one of the five.
  const ef::test::OneIn sample(5);
  const auto ins = direction_inputs();
  const GstVideoFormat outs[] = {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx,
                                 GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_RGBP};
  for (size_t g = 0; g < std::size(geometries); ++g)
    for (size_t i = 0; i < ins.size(); ++i) {
      const auto src = source(ins[i], geometries[g].in_w, geometries[g].in_h);
      for (size_t o = 0; o < std::size(outs); ++o)
        for (int direction = 0; direction < kDirections; ++direction)
          if (sample.take(g, i, o, direction))
            cases += compare(*src, geometries[g], outs[o], GstVideoOrientationMethod(direction));
    }
  std::printf("directions: %d band counts compared, all byte for byte\n", cases);
}
GST_END_TEST;

static Suite *cpu_bands_suite() {
  Suite *s = suite_create("cpu_bands");
  TCase *tc = tcase_create("general");
  tcase_add_test(tc, test_every_pair_every_geometry);
  tcase_add_test(tc, test_directions);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(cpu_bands);
