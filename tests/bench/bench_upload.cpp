// SPDX-License-Identifier: LGPL-2.1-or-later
// efupload against stock glupload on the same appsrc ring of memfd frames,
// 1080p NV12, with a stable GstMemory per slot and with one re-wrapped every
// frame; `identity` in place of the upload is the baseline. docs/BENCHMARKS.md
// ("efupload against glupload") states the targets, what each figure
// measures and the figures measured; scripts/bench.sh runs this and plots it
// with plot_upload.py.
//
// One iteration is one pipeline run: kWarmup frames, then kFrames measured
// (examples/common/upload_run.hpp). Its manual time is the upload's CPU time
// per measured frame, the rest are counters per measured frame.
//
//   bench_upload [--unpinned] [Google Benchmark options]
//
// Heap allocations per frame are counted as alloc_count.hpp says (the
// program runs itself again with G_SLICE=always-malloc so that GSlice's
// GstBuffers and GstMetas are counted too).
//
// All threads run on one CPU unless --unpinned: on a 2-vCPU guest, where the
// scheduler put the producer, streaming and GL threads moved every figure by
// up to 2x from one run to the next (cross-CPU wake-ups and cold caches).
#include <string>

#include <benchmark/benchmark.h>

#include "alloc_count.hpp"
#include "bench_threads.hpp"
#include "upload_run.hpp"

using namespace ef::examples;

namespace {

constexpr guint kWarmup = 30;
constexpr guint kFrames = 300;

// An element's own counter where it has one (efupload), else what its output
// frames showed, per measured frame.
double per_frame(const RunResult &r, const char *counter, uint64_t seen) {
  auto own = r.stats_window.find(counter);
  return double(own != r.stats_window.end() ? own->second : seen) / double(r.window.frames);
}

void BM_Upload(benchmark::State &state, const std::string &element, Wrap wrap) {
  RunConfig config;
  config.element = element;
  config.wrap = wrap;
  config.warmup = kWarmup;
  config.frames = kFrames;
  config.thread_allocations = ef::bench::thread_allocations;
  config.process_allocations = ef::bench::process_allocations;
  for (auto _ : state) {
    RunResult r = run_upload(config);
    if (!r.error.empty())
      return state.SkipWithError(r.error.c_str());
    if (r.window.frames != kFrames)
      return state.SkipWithError("frames were lost in the measured window");
    if (r.unmeasured_releases)
      return state.SkipWithError("an output frame was released outside the measurement");
    const double frames = double(r.window.frames);
    state.SetIterationTime(r.upload_cpu_ns_per_frame() / 1e9);

    auto &c = state.counters;
    c["chain_us"] = double(r.chain_cpu_ns) / frames / 1e3;
    c["release_us"] = double(r.release_cpu_ns) / frames / 1e3;
    c["gl_thread_us"] = double(r.gl_cpu_ns) / frames / 1e3;
    c["process_us"] = double(r.process_cpu_ns) / frames / 1e3;
    // Heap allocations (alloc_count.hpp): the element's chain and the drop
    // of its output on the streaming thread, and every thread of the process.
    c["chain_allocs_per_frame"] = double(r.chain_allocations) / frames;
    c["release_allocs_per_frame"] = double(r.release_allocations) / frames;
    c["process_allocs_per_frame"] = double(r.process_allocations) / frames;
    c["imports_per_frame"] = per_frame(r, "imports", r.window.imported);
    c["hits_per_frame"] = per_frame(r, "hits", r.window.reused);
    c["bytes_copied_per_frame"] = per_frame(r, "bytes-copied", r.window.bytes_copied);
    c["seen_imports_per_frame"] = double(r.window.imported) / frames;
    c["seen_egl_images_per_frame"] = double(r.window.egl_images) / frames;
    c["seen_copied_per_frame"] = double(r.window.copied) / frames;
    c["seen_bytes_copied_per_frame"] = double(r.window.bytes_copied) / frames;
    if (!r.method.empty())
      state.SetLabel("method " + r.method);
  }
}

}  // namespace

int main(int argc, char **argv) {
  ef::bench::ensure_slices_are_counted(argv);
  // Before any thread exists: threads inherit the affinity of their creator.
  const bool pin = !ef::bench::take_unpinned(argc, argv);
  const std::string placement =
      pin ? ef::bench::pin_to_one_cpu(ef::bench::process_cpus(), "all threads") : "unpinned";
  init_gstreamer(&argc, &argv);
  benchmark::AddCustomContext("placement", placement);
  for (const char *element : {"identity", "efupload", "glupload"})
    for (Wrap wrap : {Wrap::Stable, Wrap::Rewrap})
      benchmark::RegisterBenchmark(
          (std::string("BM_Upload/") + element + "/" + wrap_name(wrap)).c_str(), BM_Upload,
          std::string(element), wrap)
          ->Iterations(1)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
