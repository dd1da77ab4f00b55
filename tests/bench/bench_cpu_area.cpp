// SPDX-License-Identifier: LGPL-2.1-or-later
// cpu_area's exact footprint against libyuv's box, one thread, a whole
// plane an iteration (docs/BENCHMARKS.md, "cpu_area against libyuv's box"):
// Resampler::rows alone (the plan is made once a frame, outside the loop;
// its cost is the plan/ case), against ScalePlane(kFilterBox) on the same
// plane, and for NV12's interleaved chroma against UVScale(kFilterBox) and
// against splitting it and boxing each plane (what efconvert's libyuv path
// does). The counter ns_per_px is per output pixel (a chroma pixel counts
// once for its two channels). Compare rows within one run: the machine may
// be shared, and --benchmark_enable_random_interleaving=true with
// repetitions interleaves the cases.
//
//   bench_cpu_area [Google Benchmark options]
#include <libyuv.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "efconvert/backends/cpu/cpu_area.hpp"
#include "efconvert/backends/cpu/cpu_pool.hpp"

using namespace ef::gst::cpu;

namespace {

// A plane's scaling: `channels` interleaved bytes a sample (2: NV12's UV).
struct Case {
  const char *name;
  Axis x, y;
  int channels;
};

// NV12 chroma of 1920x1080 to 320x320: 960x540 samples each covering 2x2
// luma pixels, sited as the caps say (cosited across for MPEG-2's site).
constexpr Axis kChromaX{960, 320, 1920, 2, 0}, kChromaY{540, 320, 1080, 2, 0};
constexpr Axis kChromaCositedX{960, 320, 1920, 2, 1};

const std::vector<Case> &cases() {
  static const std::vector<Case> all{
      {"luma_1920x1080_to_640x640", plain_axis(1920, 640), plain_axis(1080, 640), 1},
      {"nv12_uv_960x540_to_320x320", kChromaX, kChromaY, 2},
      {"nv12_uv_cosited_960x540_to_320x320", kChromaCositedX, kChromaY, 2},
      {"luma_1280x720_to_640x640", plain_axis(1280, 640), plain_axis(720, 640), 1},
      {"luma_3840x2160_to_640x640", plain_axis(3840, 640), plain_axis(2160, 640), 1},
      {"luma_1920x1080_to_640x360", plain_axis(1920, 640), plain_axis(1080, 360), 1},
      {"luma_1920x1080_to_300x300", plain_axis(1920, 300), plain_axis(1080, 300), 1},
      {"luma_1000x1000_to_640x480", plain_axis(1000, 640), plain_axis(1000, 480), 1},
  };
  return all;
}

// Random samples, rows padded as a decoder pads them.
struct Frame {
  explicit Frame(const Case &c)
      : stride((c.x.samples * c.channels + 63) / 64 * 64 + 64),
        out_stride((c.x.out * c.channels + 63) / 64 * 64) {
    src.resize(size_t(stride) * c.y.samples);
    std::srand(1);
    for (auto &b : src)
      b = uint8_t(std::rand() >> 7);
    dst.resize(size_t(out_stride) * c.y.out * 2);
  }
  int stride, out_stride;
  std::vector<uint8_t> src, dst;
};

void set_counters(benchmark::State &state, const Case &c) {
  state.counters["ns_per_px"] = benchmark::Counter(
      double(c.x.out) * c.y.out * 1e-9,
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void area_rows(benchmark::State &state, const Case &c) {
  Frame f(c);
  Arena arena;
  const Resampler r(c.x, c.y, c.channels, 1, arena);
  // Each channel a plane of its own, as efconvert writes them.
  Outputs o;
  for (int k = 0; k < c.channels; ++k)
    o.data[size_t(k)] = f.dst.data() + size_t(k) * f.out_stride * c.y.out,
    o.stride[size_t(k)] = f.out_stride;
  for (auto _ : state) {
    r.rows(f.src.data(), f.stride, o, 0, 0, c.y.out);
    benchmark::DoNotOptimize(f.dst.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, c);
}

void area_plan(benchmark::State &state, const Case &c) {
  Arena arena;
  for (auto _ : state) {
    const Resampler r(c.x, c.y, c.channels, 2, arena);
    benchmark::DoNotOptimize(&r);
    arena.reset();
  }
  set_counters(state, c);
}

void libyuv_box(benchmark::State &state, const Case &c) {
  Frame f(c);
  for (auto _ : state) {
    if (c.channels == 1)
      libyuv::ScalePlane(f.src.data(), f.stride, c.x.samples, c.y.samples, f.dst.data(),
                         f.out_stride, c.x.out, c.y.out, libyuv::kFilterBox);
    else
      libyuv::UVScale(f.src.data(), f.stride, c.x.samples, c.y.samples, f.dst.data(), f.out_stride,
                      c.x.out, c.y.out, libyuv::kFilterBox);
    benchmark::DoNotOptimize(f.dst.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, c);
}

// Interleaved chroma as efconvert hands it to libyuv: split, then a box
// each plane.
void libyuv_split_box(benchmark::State &state, const Case &c) {
  Frame f(c);
  const int w = c.x.samples, h = c.y.samples;
  std::vector<uint8_t> u(size_t(w) * h), v(size_t(w) * h);
  uint8_t *out_v = f.dst.data() + size_t(f.out_stride) * c.y.out;
  for (auto _ : state) {
    libyuv::SplitUVPlane(f.src.data(), f.stride, u.data(), w, v.data(), w, w, h);
    libyuv::ScalePlane(u.data(), w, w, h, f.dst.data(), f.out_stride, c.x.out, c.y.out,
                       libyuv::kFilterBox);
    libyuv::ScalePlane(v.data(), w, w, h, out_v, f.out_stride, c.x.out, c.y.out,
                       libyuv::kFilterBox);
    benchmark::DoNotOptimize(f.dst.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, c);
}

void register_all() {
  for (const Case &c : cases()) {
    const std::string name = c.name;
    benchmark::RegisterBenchmark(("area/" + name).c_str(), area_rows, c)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("plan/" + name).c_str(), area_plan, c)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("libyuv/" + name).c_str(), libyuv_box, c)
        ->Unit(benchmark::kMicrosecond);
    if (c.channels == 2)
      benchmark::RegisterBenchmark(("libyuv_split/" + name).c_str(), libyuv_split_box, c)
          ->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
