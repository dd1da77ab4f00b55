// SPDX-License-Identifier: LGPL-2.1-or-later
// Soaks of every element with memories that are new every frame: a fresh
// memfd per frame (owned by its GstFdMemory), and a ring of four memfds
// re-wrapped in a new DONT_CLOSE GstFdMemory per frame. Every output is
// checked; open fds and RSS are sampled and must flatten (the last third of
// the samples may not exceed the middle third), and the cache counters must
// say what happened: a ring is imported once per slot, then only hits.
// efvkbridge also soaks back-to-back without the application arming any
// gate: the frames it holds must stay bounded, and each goes back within
// release-timeout of reaching the element.
#include <gst/allocators/allocators.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "chains.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::stress;

namespace {

constexpr double kFdGrowth = 4.0;  // frames in flight vary by a few
constexpr double kRssGrowthKib = 1024.0;
// Frames a bridge may hold at once when nobody arms them (release-timeout
// 5 ms at thousands of frames a second): more is an unbounded hold.
constexpr double kMaxHeldFds = 200.0;
constexpr guint kRing = 4;
constexpr guint kSampleEvery = 50;

enum class Source { FreshMemfd, Ring };

// How long each frame lived after it reached an element's sink pad: the
// bridge's hold, plus any wait for room at its bound.
class HoldTimes {
 public:
  using Clock = std::chrono::steady_clock;
  // Must outlive `element`'s pipeline: frames still held are released at NULL.
  void watch(GstElement *element) {
    GstPad *pad = gst_element_get_static_pad(element, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, this, nullptr);
    gst_object_unref(pad);
  }
  std::vector<double> sorted_ms() {
    std::lock_guard l(lock_);
    std::vector<double> ms = ms_;
    std::sort(ms.begin(), ms.end());
    return ms;
  }

 private:
  struct Arrival {
    HoldTimes *times;
    Clock::time_point at;
  };
  static GstPadProbeReturn on_buffer(GstPad *, GstPadProbeInfo *info, gpointer self) {
    auto *arrival = new Arrival{static_cast<HoldTimes *>(self), Clock::now()};
    gst_mini_object_weak_ref(GST_MINI_OBJECT(GST_PAD_PROBE_INFO_BUFFER(info)), on_freed, arrival);
    return GST_PAD_PROBE_OK;
  }
  static void on_freed(gpointer data, GstMiniObject *) {
    std::unique_ptr<Arrival> arrival(static_cast<Arrival *>(data));
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - arrival->at).count();
    std::lock_guard l(arrival->times->lock_);
    arrival->times->ms_.push_back(ms);
  }
  std::mutex lock_;
  std::vector<double> ms_;
};

// A new memfd holding `content`'s bytes, owned by its GstFdMemory.
GstBuffer *copy_into_memfd(GstBuffer *content, const GstVideoInfo &info) {
  int fd = ef::test::make_memfd("ef-stress-fast", info.size);
  GstMapInfo map;
  gst_buffer_map(content, &map, GST_MAP_READ);
  const bool written = pwrite(fd, map.data, map.size, 0) == ssize_t(map.size);
  gst_buffer_unmap(content, &map);
  if (!written)
    fail_case("cannot write a frame into a memfd");
  GstAllocator *alloc = gst_fd_allocator_new();
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer,
                           gst_fd_allocator_alloc(alloc, fd, info.size, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(alloc);
  gst_buffer_add_video_meta(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&info),
                            GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
  return buffer;
}

std::string counters(GstElement *e, const Chain &chain) {
  return std::string(chain.misses) + " " + std::to_string(ef::test::stat(e, chain.misses)) + ", " +
         chain.hits + " " + std::to_string(ef::test::stat(e, chain.hits)) + ", frames " +
         std::to_string(ef::test::stat(e, "frames"));
}

void check_flat(const std::string &what, const Series &fds, const Series &rss) {
  std::printf("%s: %s; %s\n", what.c_str(), fds.summary().c_str(), rss.summary().c_str());
  std::string why = fds.check(kFdGrowth);
  if (why.empty())
    why = rss.check(kRssGrowthKib);
  if (!why.empty())
    fail_case(what + ": " + why);
}

void soak(const Chain &chain, Source source) {
  const guint frames = 2000 * guint(scale());
  Pipeline p(pipeline_text(chain));
  p.set_caps(gst_video_info_to_caps(&chain.in));
  p.set_state(GST_STATE_PLAYING);
  std::vector<int> ring;
  if (source == Source::Ring)
    for (guint i = 0; i < kRing; ++i)
      ring.push_back(ef::test::make_memfd("ef-stress-ring", chain.in.size));
  Series fds{"open fds", {}}, rss{"RSS KiB", {}};
  for (guint n = 0; n < frames; ++n) {
    GstBuffer *frame = source == Source::Ring ? ramp_frame_in_fd(ring[n % kRing], chain.in, n)
                                              : ramp_frame(chain.in, Memory::Memfd, n);
    GST_BUFFER_PTS(frame) = n * GST_MSECOND;
    const std::string why = push_and_check(p, chain, frame);
    if (!why.empty())
      fail_case(chain.name + " frame " + std::to_string(n) + ": " + why);
    if (n % kSampleEvery == 0) {
      fds.samples.push_back(open_fds());
      rss.samples.push_back(rss_kib());
    }
  }
  GstElement *e = p.element("e");
  const std::string what = chain.name + (source == Source::Ring ? " ring" : " fresh memfds") +
                           ", " + std::to_string(frames) + " frames (" + counters(e, chain) + ")";
  p.poll_bus();
  if (!p.errors().empty())
    fail_case(what + ": messages on the bus:\n" + p.errors());
  const guint64 misses = ef::test::stat(e, chain.misses), hits = ef::test::stat(e, chain.hits);
  if (source == Source::Ring && (misses != kRing || hits != frames - kRing))
    fail_case(what + ": a ring of " + std::to_string(kRing) + " must miss " +
              std::to_string(kRing) + " times and hit for every other frame");
  // New memfds are new bytes: a hit would serve another frame's import.
  if (source == Source::FreshMemfd && (hits != 0 || misses != frames))
    fail_case(what + ": every fresh memfd must miss, none may hit");
  if (chain.vulkan && ef::test::stat(e, "gate-timeouts") != 0)
    fail_case(what + ": gates timed out although every frame was armed");
  check_flat(what, fds, rss);
  for (int fd : ring)
    close(fd);
}

// The application pushes as fast as it can and never arms a gate: only
// release-timeout (5 ms) frees the frames the bridge holds.
void unarmed_back_to_back(const Chain &chain, Source source) {
  const guint frames = 6000 * guint(scale());
  constexpr double kTimeoutMs = 5;
  HoldTimes holds;
  Pipeline p(
      "appsrc name=src format=time block=true max-bytes=" + std::to_string(4 * chain.in.size) +
      " ! efvkbridge name=e release-timeout=" + std::to_string(int(kTimeoutMs)) +
      " ! appsink name=sink sync=false drop=true max-buffers=1");
  holds.watch(p.element("e"));
  p.set_caps(gst_video_info_to_caps(&chain.in));
  p.set_state(GST_STATE_PLAYING);
  GstElement *e = p.element("e");
  const bool bounded = has_property(e, "max-held");
  if (bounded)
    std::printf("efvkbridge has max-held\n");
  else
    std::printf("efvkbridge has no max-held property\n");
  std::vector<int> ring;
  if (source == Source::Ring)
    for (guint i = 0; i < kRing; ++i)
      ring.push_back(ef::test::make_memfd("ef-stress-ring", chain.in.size));
  Series fds{"open fds", {}}, rss{"RSS KiB", {}};
  double peak_fds = 0;
  // Frames made in microseconds (one content, no conversion per frame), so
  // the application pushes faster than the bridge's timeout releases.
  GstBuffer *content = ramp_frame(chain.in, Memory::System, 0);
  for (guint n = 0; n < frames; ++n) {
    GstBuffer *frame = source == Source::Ring ? ramp_frame_in_fd(ring[n % kRing], chain.in, n)
                                              : copy_into_memfd(content, chain.in);
    GST_BUFFER_PTS(frame) = n * GST_MSECOND;
    p.push(frame);
    if (n % kSampleEvery == 0) {
      fds.samples.push_back(open_fds());
      rss.samples.push_back(rss_kib());
      peak_fds = std::max(peak_fds, fds.samples.back());
    }
    p.poll_bus();
    for (const BusMessage &m : p.messages())
      if (m.type == GST_MESSAGE_ERROR)
        fail_case("efvkbridge unarmed, frame " + std::to_string(n) + ": " + p.errors());
  }
  const std::string what = std::string("efvkbridge unarmed back-to-back, ") +
                           (source == Source::Ring ? "ring, " : "fresh memfds, ") +
                           std::to_string(frames) + " frames (gate-timeouts " +
                           std::to_string(ef::test::stat(e, "gate-timeouts")) + ", peak fds " +
                           std::to_string(int(peak_fds)) + ")";
  gst_buffer_unref(content);
  // The last frames' timeouts run out after the last push.
  const auto end = HoldTimes::Clock::now() + std::chrono::seconds(2);
  while (ef::test::stat(e, "gate-timeouts") < frames && HoldTimes::Clock::now() < end)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const std::vector<double> ms = holds.sorted_ms();
  // The appsink's queued buffer and its last sample each keep their input.
  constexpr size_t kKeptBySink = 2;
  if (ms.size() + kKeptBySink < frames)
    fail_case(what + ": " + std::to_string(ms.size()) + " of " + std::to_string(frames) +
              " frames went back within 2 s of the last push");
  // A wait for room at the bound is at most one timeout; the margin is for
  // wake-ups on a loaded machine. A hold queued behind an unbounded backlog is
  // late by the whole backlog.
  const double p90 = ms[ms.size() * 9 / 10], longest = ms.back();
  std::printf("%s: holds median %.1f ms, 90%% within %.1f ms, longest %.1f ms\n", what.c_str(),
              ms[ms.size() / 2], p90, longest);
  std::fflush(stdout);  // a failed case ends its child before stdio would
  if (peak_fds - fds.samples.front() > kMaxHeldFds)
    fail_case(what + ": more than " + std::to_string(int(kMaxHeldFds)) + " frames held at once; " +
              fds.summary());
  check_flat(what, fds, rss);
  if (p90 > 2 * kTimeoutMs + 20 || longest > 2 * kTimeoutMs + 100)
    fail_case(what + ": holds of 90% within " + std::to_string(p90) + " ms, longest " +
              std::to_string(longest) +
              " ms with release-timeout=" + std::to_string(int(kTimeoutMs)));
  p.set_state(GST_STATE_NULL);
  for (int fd : ring)
    close(fd);
}

// efupload before gldownload with no caps between negotiates pass-through:
// the frames go on in system memory, and the counters must say so.
void passthrough_counted(const Chain &chain) {
  Pipeline p(
      "appsrc name=src format=time ! efupload name=e ! gldownload ! appsink name=sink "
      "sync=false");
  p.set_caps(gst_video_info_to_caps(&chain.in));
  p.set_state(GST_STATE_PLAYING);
  const guint frames = 20;
  for (guint n = 0; n < frames; ++n) {
    const std::string why = push_and_check(p, chain, ramp_frame(chain.in, Memory::Memfd, n));
    if (!why.empty())
      fail_case("efupload pass-through frame " + std::to_string(n) + ": " + why);
  }
  GstElement *e = p.element("e");
  const guint64 counted =
      ef::test::stat(e, "imports") + ef::test::stat(e, "uploads") + ef::test::stat(e, "declines");
  std::printf("efupload pass-through: imports + uploads + declines = %" G_GUINT64_FORMAT "\n",
              counted);
  const guint64 passthrough = ef::test::stat(e, "passthrough");
  if (passthrough + counted != frames)
    fail_case("efupload pass-through: passthrough " + std::to_string(passthrough) +
              " + imports, "
              "uploads and declines " +
              std::to_string(counted) + " != " + std::to_string(frames) + " frames");
}

void register_cases(const std::string &group) {
  g_setenv("EF_VK_VALIDATION", "0", TRUE);  // per-frame validation dominates the soak's time
  for (const Chain &chain : available_chains()) {
    if (!group.empty() && group != chain.name)
      continue;
    add(
        chain.name + "/fresh_memfd", [chain] { soak(chain, Source::FreshMemfd); }, 120);
    add(
        chain.name + "/ring_rewrapped", [chain] { soak(chain, Source::Ring); }, 120);
    if (chain.name == "efupload")
      add(chain.name + "/passthrough_counted", [chain] { passthrough_counted(chain); });
    if (chain.vulkan) {
      add(
          chain.name + "/unarmed_fresh_memfd",
          [chain] { unarmed_back_to_back(chain, Source::FreshMemfd); }, 120);
      add(
          chain.name + "/unarmed_ring_rewrapped",
          [chain] { unarmed_back_to_back(chain, Source::Ring); }, 120);
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  return run(argc, argv, "stress-soak", register_cases);
}
