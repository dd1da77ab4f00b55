// SPDX-License-Identifier: LGPL-2.1-or-later
// The demo scripts/demo.sh runs: a producer's ring of memfd-backed frames goes
// through efupload, then through stock glupload, each time with the slot's
// GstMemory kept (stable) and with a new one around the same fd every frame
// (re-wrapped), and a table says what each did: imports, cache hits and
// misses, copies, CPU time.
//
//   memfd_ring [--frames N] [--size WIDTHxHEIGHT]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "upload_run.hpp"

using namespace ef::examples;

namespace {

constexpr guint kWarmup = 30;
constexpr int kLabelWidth = 28, kColumnWidth = 13;

const char *wrap_title(Wrap wrap) {
  return wrap == Wrap::Stable ? "stable" : "re-wrapped";
}

struct Column {
  RunConfig config;
  RunResult result;
};

// The figures of one run as the table shows them.
struct Figures {
  uint64_t frames, imports, hits, misses, copied, bytes_copied;
  bool operator==(const Figures &) const = default;
};

// What the output frames showed: an import is a frame showing an EGLImage
// not seen before, a hit one showing only EGLImages seen before.
Figures seen_figures(const RunResult &r) {
  const OutputCounts &seen = r.total;
  return {seen.frames, seen.imported, seen.reused, seen.imported, seen.copied, seen.bytes_copied};
}

// The element's own counters (efupload's efupload-stats message), where it
// has them all; glupload has none.
std::optional<Figures> own_figures(const RunResult &r) {
  const auto &s = r.stats_total;
  for (const char *name : {"frames", "imports", "hits", "misses", "uploads", "bytes-copied"})
    if (!s.contains(name))
      return std::nullopt;
  return Figures{s.at("frames"), s.at("imports"), s.at("hits"),
                 s.at("misses"), s.at("uploads"), s.at("bytes-copied")};
}

Figures figures_of(const Column &c) {
  return own_figures(c.result).value_or(seen_figures(c.result));
}

bool parse_args(int argc, char **argv, RunConfig &base) {
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--frames") && has_value) {
      const long frames = std::strtol(argv[++i], nullptr, 10);
      if (frames <= long(kWarmup))
        return false;
      base.frames = guint(frames) - kWarmup;
    } else if (!std::strcmp(argv[i], "--size") && has_value) {
      if (std::sscanf(argv[++i], "%ux%u", &base.width, &base.height) != 2 || !base.width ||
          !base.height)
        return false;
    } else {
      return false;
    }
  }
  return true;
}

void print_row(const char *label, const std::vector<Column> &columns,
               uint64_t (*value)(const Column &)) {
  std::printf("  %-*s", kLabelWidth, label);
  for (const Column &c : columns)
    std::printf(" %*llu", kColumnWidth - 1, static_cast<unsigned long long>(value(c)));
  std::printf("\n");
}

// " ----- name -----" over the two columns of one element.
std::string group_header(const char *name) {
  const std::string title = std::string(" ") + name + " ";
  const size_t width = 2 * kColumnWidth - 1, left = (width - title.size()) / 2;
  return " " + std::string(left, '-') + title + std::string(width - left - title.size(), '-');
}

void print_table(const std::vector<Column> &columns) {
  std::printf("\n  %-*s%s%s\n", kLabelWidth, "", group_header("efupload").c_str(),
              group_header("glupload").c_str());
  std::printf("  %-*s", kLabelWidth, "");
  for (const Column &c : columns)
    std::printf(" %*s", kColumnWidth - 1, wrap_title(c.config.wrap));
  std::printf("\n");
  print_row("frames", columns, [](const Column &c) { return figures_of(c).frames; });
  print_row("zero-copy imports", columns, [](const Column &c) { return figures_of(c).imports; });
  print_row("cache hits", columns, [](const Column &c) { return figures_of(c).hits; });
  print_row("cache misses", columns, [](const Column &c) { return figures_of(c).misses; });
  print_row("frames copied", columns, [](const Column &c) { return figures_of(c).copied; });
  print_row("bytes copied", columns, [](const Column &c) { return figures_of(c).bytes_copied; });
  // printf pads bytes, and "µ" is two of them in UTF-8.
  std::printf("  %-*s", kLabelWidth + 1, "upload CPU per frame (µs) *");
  for (const Column &c : columns)
    std::printf(" %*.1f", kColumnWidth - 1, c.result.upload_cpu_ns_per_frame() / 1e3);
  std::printf("\n");
}

// An element's counters must say what its output frames showed.
void check_counters(const Column &c) {
  const auto own = own_figures(c.result);
  const Figures seen = seen_figures(c.result);
  if (!own || *own == seen)
    return;
  std::printf(
      "  note: %s (%s) counted %llu imports, %llu hits, %llu copies; its output frames "
      "showed %llu, %llu, %llu\n",
      c.config.element.c_str(), wrap_name(c.config.wrap),
      static_cast<unsigned long long>(own->imports), static_cast<unsigned long long>(own->hits),
      static_cast<unsigned long long>(own->copied), static_cast<unsigned long long>(seen.imports),
      static_cast<unsigned long long>(seen.hits), static_cast<unsigned long long>(seen.copied));
}

}  // namespace

int main(int argc, char **argv) {
  init_gstreamer(&argc, &argv);
  RunConfig base;
  base.warmup = kWarmup;
  base.frames = 300 - kWarmup;
  if (!parse_args(argc, argv, base)) {
    std::fprintf(stderr, "usage: %s [--frames N (more than %u)] [--size WIDTHxHEIGHT]\n", argv[0],
                 kWarmup);
    return 2;
  }
  const gint64 start = g_get_monotonic_time();
  std::printf(
      "%u frames of %ux%u NV12 per run from a ring of %u memfds, through\n"
      "  appsrc ! UPLOAD ! video/x-raw(memory:GLMemory) ! fakesink\n",
      base.warmup + base.frames, base.width, base.height, base.slots);

  std::vector<Column> columns;
  int status = 0;
  for (const char *element : {"efupload", "glupload"})
    for (Wrap wrap : {Wrap::Stable, Wrap::Rewrap}) {
      Column c{base, {}};
      c.config.element = element;
      c.config.wrap = wrap;
      std::printf("  running %s, %s memory...\n", element, wrap_title(wrap));
      std::fflush(stdout);
      c.result = run_upload(c.config);
      for (const std::string &warning : c.result.warnings)
        std::printf("    warning: %s\n", warning.c_str());
      if (!c.result.error.empty()) {
        std::fprintf(stderr, "%s (%s) failed: %s\n", element, wrap_name(wrap),
                     c.result.error.c_str());
        status = 1;
        continue;
      }
      columns.push_back(std::move(c));
    }
  if (status)
    return status;

  print_table(columns);
  for (const Column &c : columns)
    check_counters(c);
  const Column &ef_rewrap = columns[1], &gl_rewrap = columns[3];
  std::printf(
      "\n"
      "  stable:      the same GstBuffer and GstMemory each time a slot comes round\n"
      "  re-wrapped:  a new GstDmaBufMemory around a dup of the slot's fd every frame\n"
      "  efupload's figures are its own counters (the efupload-stats message). glupload\n"
      "  has none: its imports are output frames showing an EGLImage not seen before, its\n"
      "  hits frames showing only EGLImages seen before. It keeps its EGLImages on the\n"
      "  GstMemory (upload method: %s); efupload keys its cache on the memfd itself.\n"
      "  * the %u frames after %u warm-up frames: the element's chain, the release of its\n"
      "    output frames and its GL thread (docs/BENCHMARKS.md, efupload against glupload)\n"
      "\n"
      "  With re-wrapped memory efupload imported %llu times for %llu frames, glupload %llu\n"
      "  times; efupload used %.0fx less CPU time per frame.\n",
      gl_rewrap.result.method.empty() ? "unknown" : gl_rewrap.result.method.c_str(), base.frames,
      base.warmup, static_cast<unsigned long long>(figures_of(ef_rewrap).imports),
      static_cast<unsigned long long>(figures_of(ef_rewrap).frames),
      static_cast<unsigned long long>(figures_of(gl_rewrap).imports),
      gl_rewrap.result.upload_cpu_ns_per_frame() / ef_rewrap.result.upload_cpu_ns_per_frame());
  std::printf("\ndone in %.1f s\n", double(g_get_monotonic_time() - start) / 1e6);
  return 0;
}
