// SPDX-License-Identifier: LGPL-2.1-or-later
// What efvkbridge keeps between frames, shared by its two directions
// (into_vulkan.cpp, out_of_vulkan.cpp) and the element (gstefvkbridge.cpp).
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "common/element_stats.hpp"
#include "common/frame_errors.hpp"
#include "common/frame_importer.hpp"
#include "common/refused_caps.hpp"
#include "device_context.hpp"
#include "ef/import_cache.hpp"
#include "release_queue.hpp"
#include "vk/device.hpp"
#include "vk/download.hpp"
#include "vk/formats.hpp"
#include "vk/imported_frame.hpp"
#include "vk/staging_ring.hpp"

GST_DEBUG_CATEGORY_EXTERN(gst_ef_vk_bridge_debug);

namespace ef::gst {

struct BridgeCounters {
  enum Counter : guint {
    kFrames,
    kImports,
    kHits,
    kMisses,
    kEvictions,
    kRefusals,
    kDeclines,
    kCopies,
    kBytesCopied,
    kGateTimeouts,
    kDownloads,
    kDstHits,
    kDstMisses,
    kValidationMessages,
    kDropped,
    kHeldPeak,
    kHeldWaits,
    kCount,
  };
  static constexpr const char *kName = "efvkbridge-stats";
  static constexpr std::array<CounterSpec, kCount> kSpecs = {{
      {kFrames, "frames", "Frames bridged, both directions"},
      {kImports, "imports",
       "Input frames imported into Vulkan without a copy (cache misses that imported)"},
      {kHits, "hits", "Input frames served from an earlier import (no Vulkan object created)"},
      {kMisses, "misses", "Input import cache misses"},
      {kEvictions, "evictions", "Imports evicted from the cache (least recently used)"},
      {kRefusals, "refusals", "Lookups refused because an identity no longer matched its source"},
      {kDeclines, "declines",
       "Frames not imported (system memory, stride, refused or failed import)"},
      {kCopies, "copies",
       "Frames copied by the CPU (into staging images, or out of a staging buffer)"},
      {kBytesCopied, "bytes-copied", "Bytes copied by the CPU"},
      {kGateTimeouts, "gate-timeouts",
       "Frames released because their gate was not armed within release-timeout"},
      {kDownloads, "downloads", "Application VkImages copied by the GPU into fd-backed frames"},
      {kDstHits, "dst-hits", "Output buffers served from an earlier import as a VkBuffer"},
      {kDstMisses, "dst-misses", "Output buffers imported as a VkBuffer anew"},
      {kValidationMessages, "validation-messages",
       "Vulkan validation warnings and errors on the bridge's own device"},
      {kDropped, "dropped", "Bad input frames dropped with a warning (see max-errors)"},
      {kHeldPeak, "held-peak",
       "Most input frames held at once for their slot-release gates (at most max-held)"},
      {kHeldWaits, "held-waits",
       "Input frames that waited for a held frame to go back (max-held reached)"},
  }};
};
using BridgeStats = ElementStats<BridgeCounters>;
using enum BridgeCounters::Counter;

enum class Direction { None, IntoVulkan, OutOfVulkan };

// What the bridge says when it copies a frame into Vulkan instead of
// importing it.
extern const DeclineTexts kIntoVulkanDeclines;

// Frames held for their gates at most, by default: a producer that makes a
// new memory per frame has no pool to bound it, and each held frame pins
// its memory (an fd) until released.
inline constexpr guint kDefaultMaxHeld = 16;

// Written by the application thread (properties), read when streaming.
struct BridgeSettings {
  int device_index = -1;
  std::optional<DeviceUuid> device_uuid;
  guint release_timeout_ms = 1000;
  guint max_held = kDefaultMaxHeld;
  guint cache_capacity = default_cache_capacity();
};

// Split the way gst-plugins-rs elements are: settings under a lock, copied
// once per frame; the stream's state made in start and set_caps and
// dropped in stop; statistics and the device negotiation readable from any
// thread.
struct BridgeState {
  std::mutex lock;  // settings, path name
  BridgeSettings settings;
  std::string last_path = "none";
  ElementVkDevice vk;
  RefusedCaps refused;  // set_caps only; forgotten by stop: a new run says it again
  BridgeStats stats;
  FrameErrors errors;  // max-errors: any thread; the run: streaming thread

  // Streaming thread.
  BridgeSettings frame;  // the settings of the frame in flight
  std::shared_ptr<vk::Device> device;
  Direction direction = Direction::None;
  GstVideoInfo in_info{};
  GstVideoInfo out_info{};
  std::optional<vk::FormatLayout> format;
  ImportCache<vk::ImportedFrame> imports;
  FrameImporter<vk::ImportedFrame> importer{imports, gst_ef_vk_bridge_debug, kIntoVulkanDeclines};
  ImportCache<vk::TargetBuffer> targets;
  std::shared_ptr<vk::StagingRing> staging;
  std::optional<vk::TargetBuffer> staging_buffer;
  std::unique_ptr<ReleaseQueue> held;
  uint64_t frame_number = 0;

  // Once per frame, before anything reads `frame`.
  void copy_settings() {
    std::lock_guard l(lock);
    frame = settings;
  }
  std::chrono::nanoseconds release_timeout() const {
    return std::chrono::milliseconds(frame.release_timeout_ms);
  }
  guint max_held() const { return frame.max_held; }
};

// The two directions, per frame. Both post their errors on the bus.
GstFlowReturn bridge_into_vulkan(GstElement *element, BridgeState &s, GstBuffer *in,
                                 GstBuffer **out);
GstFlowReturn bridge_out_of_vulkan(GstElement *element, BridgeState &s, GstBuffer *in,
                                   GstBuffer *out);

// Warnings on the bus for the first few frames released late; the rest go to
// the debug log and the gate-timeouts counter, so a pipeline without a
// consumer that arms (fakesink) does not flood the bus.
inline constexpr uint64_t kTimeoutWarnings = 5;

// "frame 12 (pts 0:00:00.400000000)", for warnings.
std::string describe_frame(GstBuffer *buffer, uint64_t number);

// Bounded waits for GPU work the bridge submits itself.
inline constexpr uint64_t kGpuTimeoutNs = 5'000'000'000;

}  // namespace ef::gst
