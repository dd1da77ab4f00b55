// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend's registry entry (backend_registry.hpp).
#include <algorithm>
#include <string>

#include "cpu_backend.hpp"
#include "efconvert/backends/backend_registry.hpp"

namespace ef::gst {

namespace {

// The cores the pass will use: n-threads caps them.
Facts observe(const BackendContext &ctx, const Machine &) {
  Facts f;
  const unsigned online = std::max(1u, g_get_num_processors());
  const unsigned asked = ctx.settings.n_threads;
  f.cores = asked == 0 ? online : std::min(asked, online);
  return f;
}

// On a 16-core host with an H200, 1080p NV12 -> 640x640 RGB: 288 us a
// frame, 465 us on one core, where the pass also takes the only core the
// rest of the pipeline has.
Cost cost(const Machine &, const Facts &f) {
  if (f.cores == 1)
    return {3, "the CPU pass would take the only core"};
  return {2, "the CPU pass on " + std::to_string(f.cores) + " cores"};
}

Result<std::unique_ptr<ConvertBackend>> make(const BackendContext &ctx, const GstVideoInfo &in,
                                             const OutputSpec &out, const Conversion &) {
  return make_cpu_backend(in, out, ctx.settings.cache_capacity, ctx.settings.n_threads);
}

}  // namespace

const BackendEntry &cpu_backend_entry() {
  static const BackendEntry entry{
      .value = 2,
      .name = "cpu",
      .label = "CPU",
      .blurb = "Fused libyuv pass on the CPU",
      .when = "",
      .table = cpu_table,
      .device = nullptr,
      .device_always = false,
      .pipelines_readbacks = false,
      .honours = kCacheCapacity | kNThreads | kKeepBorders,
      .compute_missing = nullptr,
      .observe = observe,
      .cost = cost,
      .learn = nullptr,
      .size_limit = nullptr,
      .make = make,
  };
  return entry;
}

}  // namespace ef::gst
