// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's resampling kernels against their definitions:
// cpu_area's exact footprint (and linear interpolation) against the mean
// computed in double from the footprint's definition, for seeded random
// ratios, sites and channel counts, its 32-bit and 64-bit sums, and in
// bands, over bytes, over 16-bit words (a deep image's planes) and from
// bytes into words (a float tensor's planes, the mean times 256); the box kernels of 3 and 1.5
// (centred and cosited) and the 2x kernel against cpu_area, byte for byte, at widths that end in
// each of their vector paths. The standard headers (and ours, which include them) come first:
// Check's fail() macro breaks <ios>.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "efconvert/backends/cpu/cpu_area.hpp"
#include "efconvert/backends/cpu/cpu_box.hpp"
#include "efconvert/backends/cpu/cpu_up2.hpp"
#include "simd_level.hpp"

#include <gst/check/gstcheck.h>

using namespace ef::gst::cpu;

namespace {

// A sample of `depth` bytes (1, or 2: a 16-bit word) at `p`.
int sample_at(const uint8_t *p, int depth) {
  if (depth == 1)
    return *p;
  uint16_t word;
  std::memcpy(&word, p, sizeof(word));
  return word;
}

// A plane of random samples of `depth` bytes, `channels` a pixel, rows
// padded. `fill`: every sample that value instead.
struct Source {
  Source(int w, int h, int channels, unsigned seed, int depth = 1, int fill = -1)
      : w(w), h(h), channels(channels), depth(depth), stride((w * channels + 5) * depth) {
    bytes.resize(size_t(stride) * h);
    std::srand(seed);
    for (size_t k = 0; k < bytes.size(); k += size_t(depth)) {
      const int v = fill >= 0 ? fill : std::rand() >> 7;
      bytes[k] = uint8_t(v);
      if (depth == 2)
        bytes[k + 1] = uint8_t(v >> 8);
    }
  }
  int at(int x, int y, int c) const {
    return sample_at(&bytes[size_t(y) * stride + (size_t(x) * channels + size_t(c)) * depth],
                     depth);
  }
  int w, h, channels, depth, stride;
  std::vector<uint8_t> bytes;
};

// Planes of output, one a channel, samples of `depth` bytes.
struct Planes {
  Planes(int w, int h, int channels, int depth = 1) : w(w), h(h), channels(channels), depth(depth) {
    bytes.assign(size_t(w) * h * channels * depth, 0);
  }
  Outputs outputs() {
    Outputs o;
    for (int c = 0; c < channels; ++c)
      o.data[size_t(c)] = bytes.data() + size_t(c) * w * h * depth, o.stride[size_t(c)] = w * depth;
    return o;
  }
  int at(int x, int y, int c) const {
    return sample_at(&bytes[((size_t(c) * h + y) * w + x) * depth], depth);
  }
  int w, h, channels, depth;
  std::vector<uint8_t> bytes;
};

// The definition along one axis: output i's samples and the part of each
// it takes. Area: the footprint [i, i + 1) * span / out luma pixels, in
// the plane's samples (a luma pixel is 1 / sub of one), moved by a quarter
// sample where the samples sit on the first (+1) or last (-1) of their two
// pixels, each sample weighed by the part it covers (past an edge, the
// edge sample). Linear: the output's centre between the two samples whose
// centres are nearest.
std::vector<std::pair<int, double>> shares(const Axis &a, int i) {
  const double scale = double(a.span) / a.out / a.sub;
  const double offset = a.sub == 2 ? 0.25 * a.site : 0.0;
  auto clamp = [&](long k) { return int(std::clamp<long>(k, 0, a.samples - 1)); };
  std::vector<std::pair<int, double>> out;
  if (!a.area) {
    const double p = (i + 0.5) * scale + offset - 0.5;
    const long k = long(std::floor(p));
    out.push_back({clamp(k), 1 - (p - k)});
    out.push_back({clamp(k + 1), p - k});
    return out;
  }
  const double lo = i * scale + offset, hi = lo + scale;
  for (long k = long(std::floor(lo)); k < long(std::ceil(hi)); ++k) {
    const double w = std::min(hi, k + 1.0) - std::max(lo, double(k));
    if (w > 0)
      out.push_back({clamp(k), w});
  }
  return out;
}

double mean(const Source &src, const Axis &x, const Axis &y, int i, int j, int c) {
  double sum = 0, total = 0;
  for (const auto &[ky, wy] : shares(y, j))
    for (const auto &[kx, wx] : shares(x, i)) {
      sum += wx * wy * src.at(kx, ky, c);
      total += wx * wy;
    }
  return sum / total;
}

// `widen`: bytes into words, each mean times 256.
Planes resample(const Source &src, const Axis &x, const Axis &y, int bands = 1,
                bool widen = false) {
  Planes out(x.out, y.out, src.channels, widen ? 2 : src.depth);
  Arena arena;
  const Samples samples = src.depth == 2 ? Samples::Words
                          : widen        ? Samples::BytesToWords
                                         : Samples::Bytes;
  const Resampler r(x, y, src.channels, unsigned(bands), arena, samples);
  const Outputs o = out.outputs();
  for (int b = 0; b < bands; ++b)
    r.rows(src.bytes.data(), src.stride, o, unsigned(b), y.out * b / bands,
           y.out * (b + 1) / bands);
  arena.reset();
  return out;
}

// Every output against the definition (times `scale`): the rounded mean
// exactly, but where the mean lies within double's error of a half.
void check_definition(const Source &src, const Axis &x, const Axis &y, const Planes &ours,
                      const std::string &what, double scale = 1) {
  for (int c = 0; c < src.channels; ++c)
    for (int j = 0; j < y.out; ++j)
      for (int i = 0; i < x.out; ++i) {
        const double m = scale * mean(src, x, y, i, j, c);
        const int got = ours.at(i, j, c);
        if (std::fabs(m - std::floor(m) - 0.5) < 1e-7)
          fail_unless(std::abs(got - int(std::floor(m))) <= 1, "%s", what.c_str());
        else
          fail_unless(got == int(std::floor(m + 0.5)),
                      "%s: output %d,%d channel %d is %d, the mean %.4f", what.c_str(), i, j, c,
                      got, m);
      }
}

std::string describe(const Axis &a) {
  return std::to_string(a.samples) + " samples (span " + std::to_string(a.span) + ", sub " +
         std::to_string(a.sub) + ", site " + std::to_string(a.site) + ") to " +
         std::to_string(a.out) + (a.area ? " by area" : " linear");
}

Axis random_axis(int max) {
  Axis a;
  a.sub = std::rand() % 2 ? 2 : 1;
  a.samples = 1 + std::rand() % max;
  // A subsampled axis of an odd span: its last sample half outside.
  a.span = a.samples * a.sub - (a.sub == 2 && a.samples > 1 && std::rand() % 3 == 0 ? 1 : 0);
  a.out = 1 + std::rand() % max;
  a.site = a.sub == 2 ? std::rand() % 3 - 1 : 0;
  a.area = std::rand() % 4 != 0;
  return a;
}

// Geometries that end in every vector path: 1..70 samples, both filters.
GST_START_TEST(test_against_definition) {
  std::srand(11);
  int cases = 0;
  for (int round = 0; round < 400; ++round) {
    const Axis x = random_axis(70), y = random_axis(40);
    const int channels = std::array{1, 2, 4}[size_t(std::rand() % 3)];
    const Source src(x.samples, y.samples, channels, unsigned(round));
    const std::string what =
        "x: " + describe(x) + ", y: " + describe(y) + ", " + std::to_string(channels) + " channels";
    const Planes ours = resample(src, x, y);
    check_definition(src, x, y, ours, what);
    // Bands of rows, each its own slot: the same bytes.
    if (y.out >= 3)
      fail_unless(resample(src, x, y, 3).bytes == ours.bytes, "%s: bands differ", what.c_str());
    ++cases;
  }
  std::printf("cpu_area against the definition: %d random geometries exact\n", cases);
}
GST_END_TEST;

// Reductions whose taps fit cpu_area_window's 8 column sums (8 outputs or
// more) and vertical weights below 128 (the pmaddubsw blocks) or column
// sums past 2^15 (the window's bias): plain and sited, against the
// definition and in bands.
Axis window_axis(int channels) {
  Axis a;
  a.sub = std::rand() % 2 ? 2 : 1;
  a.out = 8 + std::rand() % 90;
  const int taps = 8 / channels - 1;  // a footprint straddles one more
  const int span = a.out * (1 + std::rand() % taps) + std::rand() % a.out;
  a.samples = std::max(1, span / a.sub);
  a.span = a.samples * a.sub;
  a.site = a.sub == 2 ? std::rand() % 3 - 1 : 0;
  return a;
}

// Rows whose weights total `lo` to `hi` (a prime number of rows to 1-3).
Axis rows_totalling(int lo, int hi) {
  for (;;) {
    const int n = lo + std::rand() % (hi - lo);
    bool prime = n > 1;
    for (int d = 2; d * d <= n; ++d)
      prime = prime && n % d != 0;
    if (prime)
      return plain_axis(n, 1 + std::rand() % 3);
  }
}

GST_START_TEST(test_window_against_definition) {
  std::srand(31);
  for (int round = 0; round < 300; ++round) {
    const int channels = 1 + std::rand() % 2;
    const Axis x = window_axis(channels);
    const Axis y = round % 3 == 0 ? rows_totalling(150, 257) : random_axis(60);
    const Source src(x.samples, y.samples, channels, unsigned(round) + 500);
    const std::string what = "window, x: " + describe(x) + ", y: " + describe(y) + ", " +
                             std::to_string(channels) + " channels";
    const Planes ours = resample(src, x, y);
    check_definition(src, x, y, ours, what);
    if (y.out >= 3)
      fail_unless(resample(src, x, y, 3).bytes == ours.bytes, "%s: bands differ", what.c_str());
  }
  // The brightest and darkest footprints: the window's bias at its ends.
  for (int fill : {0, 255}) {
    const Axis x = plain_axis(57, 9), y = plain_axis(251, 2);
    const Source src(57, 251, 1, 9, 1, fill);
    const Planes ours = resample(src, x, y);
    check_definition(src, x, y, ours, "window, a plane of " + std::to_string(fill));
  }
}
GST_END_TEST;

// 16-bit words (a deep image's planes, one channel): the same footprints,
// their column sums in 32 bits or 64.
GST_START_TEST(test_words_against_definition) {
  std::srand(23);
  int cases = 0;
  for (int round = 0; round < 300; ++round) {
    const Axis x = random_axis(70), y = random_axis(40);
    const Source src(x.samples, y.samples, 1, unsigned(round) + 1000, 2);
    const std::string what = "words, x: " + describe(x) + ", y: " + describe(y);
    const Planes ours = resample(src, x, y);
    check_definition(src, x, y, ours, what);
    if (y.out >= 3)
      fail_unless(resample(src, x, y, 3).bytes == ours.bytes, "%s: bands differ", what.c_str());
    ++cases;
  }
  std::printf("cpu_area over 16-bit words: %d random geometries exact\n", cases);
}
GST_END_TEST;

// Bytes into words (an 8-bit plane for a float tensor): each output the
// mean times 256 rounded to a word, every channel count, window and
// vector path and the C tails, in bands the same.
GST_START_TEST(test_bytes_to_words_against_definition) {
  std::srand(41);
  for (int round = 0; round < 300; ++round) {
    const int channels = std::array{1, 2, 4}[size_t(std::rand() % 3)];
    const bool window = round % 2 == 0 && channels < 4;
    const Axis x = window ? window_axis(channels) : random_axis(70), y = random_axis(40);
    const Source src(x.samples, y.samples, channels, unsigned(round) + 2000);
    const std::string what = "bytes to words, x: " + describe(x) + ", y: " + describe(y) + ", " +
                             std::to_string(channels) + " channels";
    const Planes ours = resample(src, x, y, 1, true);
    check_definition(src, x, y, ours, what, 256);
    if (y.out >= 3)
      fail_unless(resample(src, x, y, 3, true).bytes == ours.bytes, "%s: bands differ",
                  what.c_str());
  }
}
GST_END_TEST;

// Footprints whose weights multiply past 2^31 (summed in 64 bits) and
// column sums past 16 bits: a whole 3001 x 2999 plane into 2 x 3; words
// the same, and their column sums past 32 bits, the largest word kept.
GST_START_TEST(test_wide_sums) {
  const Axis x = plain_axis(3001, 2), y = plain_axis(2999, 3);
  const Source src(3001, 2999, 1, 3);
  check_definition(src, x, y, resample(src, x, y), "3001x2999 to 2x3");
  const Source words(3001, 2999, 1, 5, 2);
  check_definition(words, x, y, resample(words, x, y), "words, 3001x2999 to 2x3");
  // 70001 rows in 3 weigh up to 70001 each: words' column sums in 64 bits
  // (beyond the CPU path's size limit; the resampler takes it).
  const Axis tall = plain_axis(70001, 3);
  for (int fill : {-1, 65535}) {
    const Source column(5, 70001, 1, 7, 2, fill);
    const Planes out = resample(column, plain_axis(5, 2), tall);
    check_definition(column, plain_axis(5, 2), tall, out, "words, 5x70001 to 2x3");
    for (int j = 0; fill >= 0 && j < 3; ++j)
      fail_unless(out.at(0, j, 0) == fill, "%d everywhere came out %d", fill, out.at(0, j, 0));
  }
}
GST_END_TEST;

constexpr int kWidths[] = {1, 2, 4, 5, 8, 9, 13, 16, 17, 29, 31, 45, 61, 70};

// The box kernels give the bytes of the exact footprint: 3 to 1 of planes
// and pairs (centred and cosited across), 1.5 to 1 of pairs centred and
// cosited across.
GST_START_TEST(test_boxes_are_areas) {
  for (int w : kWidths) {
    const int h = 7;
    const Source plane(3 * w, 3 * h, 1, unsigned(w));
    Planes box(w, h, 1);
    box3_plane(plane.bytes.data(), plane.stride, box.bytes.data(), w, w, h);
    fail_unless(box.bytes == resample(plane, plain_axis(3 * w, w), plain_axis(3 * h, h)).bytes,
                "box3_plane, width %d", w);
    const Source pairs(3 * w, 3 * h, 2, unsigned(w) + 100);
    for (int site : {0, 1}) {
      Planes uv(w, h, 2);
      box3_uv(pairs.bytes.data(), pairs.stride, uv.bytes.data(), w, uv.bytes.data() + w * h, w, w,
              h, site == 1);
      const Axis x3{3 * w, w, 6 * w, 2, site}, y3{3 * h, h, 6 * h, 2, 0};
      fail_unless(uv.bytes == resample(pairs, x3, y3).bytes, "box3_uv, width %d, %s", w,
                  site ? "cosited" : "centred");
      Planes uv32(2 * w, 2 * h, 2);
      box32_uv(pairs.bytes.data(), pairs.stride, uv32.bytes.data(), 2 * w,
               uv32.bytes.data() + 4 * w * h, 2 * w, w, h, site == 1);
      const Axis x{3 * w, 2 * w, 6 * w, 2, site}, y{3 * h, 2 * h, 6 * h, 2, 0};
      fail_unless(uv32.bytes == resample(pairs, x, y).bytes, "box32_uv, width %d, %s", w,
                  site ? "cosited" : "centred");
    }
  }
}
GST_END_TEST;

// The same into words (a float tensor's planes): the box kernels of 3 (a
// plane's) and 1.5 give cpu_area's words, each mean times 256, also where
// every byte is 255 (the largest word, 65280).
GST_START_TEST(test_box_words_are_areas) {
  for (int w : kWidths)
    for (int fill : {-1, 255}) {
      const int h = 7;
      const Source plane(3 * w, 3 * h, 1, unsigned(w) + 300, 1, fill);
      Planes box(w, h, 1, 2);
      box3_plane(plane.bytes.data(), plane.stride, reinterpret_cast<uint16_t *>(box.bytes.data()),
                 2 * w, w, h);
      fail_unless(
          box.bytes == resample(plane, plain_axis(3 * w, w), plain_axis(3 * h, h), 1, true).bytes,
          "box3_plane into words, width %d", w);
      const Source pairs(3 * w, 3 * h, 2, unsigned(w) + 400, 1, fill);
      for (int site : {0, 1}) {
        Planes uv32(2 * w, 2 * h, 2, 2);
        auto *u = reinterpret_cast<uint16_t *>(uv32.bytes.data());
        box32_uv(pairs.bytes.data(), pairs.stride, u, 4 * w, u + 4 * w * h, 4 * w, w, h, site == 1);
        const Axis x{3 * w, 2 * w, 6 * w, 2, site}, y{3 * h, 2 * h, 6 * h, 2, 0};
        fail_unless(uv32.bytes == resample(pairs, x, y, 1, true).bytes,
                    "box32_uv into words, width %d, %s", w, site ? "cosited" : "centred");
      }
    }
}
GST_END_TEST;

// The 2x kernel gives cpu_area's linear interpolation, cosited across:
// pairs and planes, subsampled down (4:2:0) or not (4:2:2).
GST_START_TEST(test_up2_is_linear) {
  for (int w : kWidths)
    for (int channels : {1, 2})
      for (bool down : {true, false}) {
        const int h = 5;
        const Source src(w, h, channels, unsigned(w * channels));
        const int out_h = down ? 2 * h : h;
        Planes ours(2 * w, out_h, channels);
        uint8_t *v = ours.bytes.data() + size_t(2 * w) * out_h;
        up2_cosited_rows(src.bytes.data(), src.stride, w, h, channels == 2, down, ours.bytes.data(),
                         2 * w, v, 2 * w, 0, out_h);
        Axis x{w, 2 * w, 2 * w, 2, 1, false};
        Axis y = down ? Axis{h, 2 * h, 2 * h, 2, 0, false} : plain_axis(h, h);
        fail_unless(ours.bytes == resample(src, x, y).bytes, "up2, width %d, %d channels, %s", w,
                    channels, down ? "4:2:0" : "4:2:2");
        check_definition(src, x, y, ours, "up2");
      }
}
GST_END_TEST;

}  // namespace

static Suite *cpu_area_suite() {
  Suite *s = suite_create("cpu_area");
  TCase *tc = tcase_create("general");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_against_definition);
  tcase_add_test(tc, test_window_against_definition);
  tcase_add_test(tc, test_words_against_definition);
  tcase_add_test(tc, test_bytes_to_words_against_definition);
  tcase_add_test(tc, test_wide_sums);
  tcase_add_test(tc, test_boxes_are_areas);
  tcase_add_test(tc, test_box_words_are_areas);
  tcase_add_test(tc, test_up2_is_linear);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  gst_check_init(&argc, &argv);
  if (const int skip = ef::test::skip_unless_simd_as_asked())
    return skip;
  return gst_check_run_suite(cpu_area_suite(), "cpu_area", __FILE__);
}
