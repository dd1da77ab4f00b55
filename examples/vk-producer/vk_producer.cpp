// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames out of an application's Vulkan: a ring of VkImages, each cleared to
// a colour that encodes the frame number, pushed through
//
//   appsrc (video/x-raw(memory:EfVkImage)) ! efvkbridge ! appsink
//
// The bridge copies each image into a memfd frame on the GPU and arms the
// slot's gate when the copy retired; the producer waits on the gate before it
// clears the slot again. The appsink checks that every frame shows exactly
// the frame number it was pushed as: a slot rewritten while the bridge still
// had to copy it would show a later number. appsrc queues without limit
// (block=false, max-bytes=0) and the sink is slowed down, so the gates are
// the only thing holding the producer back.
//
//   vk_producer [--frames N] [--ring N] [--size WxH] [--slow-ms M] [--unsafe]
//
// --unsafe skips the gates: the check then fails, which shows that it can.
// Exit status: 0 when every frame matched, every keep-alive was released
// exactly once and there was no validation message; 77 (skip) without a
// Vulkan device; 1 otherwise.
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "image_ring.hpp"
#include "vk_app.hpp"

using namespace ef::examples;

namespace {

constexpr uint64_t kAcquireTimeoutNs = 5'000'000'000;

struct Options {
  guint frames = 90;
  guint ring = 3;
  guint width = 320, height = 240;
  guint slow_ms = 2;
  bool unsafe = false;
};

bool parse_args(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--unsafe"))
      o.unsafe = true;
    else if (!std::strcmp(argv[i], "--frames") && value)
      o.frames = guint(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--ring") && value)
      o.ring = guint(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--slow-ms") && value)
      o.slow_ms = guint(std::strtoul(argv[++i], nullptr, 10));
    else if (!std::strcmp(argv[i], "--size") && value) {
      if (std::sscanf(argv[++i], "%ux%u", &o.width, &o.height) != 2)
        return false;
    } else
      return false;
  }
  return o.frames > 0 && o.ring > 0 && o.width > 0 && o.height > 0;
}

// One keep-alive per pushed frame: what the wrapper retains when it is made
// and releases when the last copy of it (in GstEfVkImageMemory, in the
// bridge) goes. Counting both proves each ran exactly once.
struct KeepAlive {
  std::atomic<int> retains{0}, releases{0};
};
void on_retain(const void *ctx) {
  ++static_cast<KeepAlive *>(const_cast<void *>(ctx))->retains;
}
void on_release(const void *ctx) {
  ++static_cast<KeepAlive *>(const_cast<void *>(ctx))->releases;
}

// The appsink side: every output frame is checked pixel by pixel.
struct Checker {
  guint slow_ms = 0;
  guint frames = 0, bad_frames = 0;
};

GstFlowReturn on_sample(GstAppSink *sink, gpointer user) {
  auto *c = static_cast<Checker *>(user);
  GstSample *sample = gst_app_sink_pull_sample(sink);
  if (!sample)
    return GST_FLOW_EOS;
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *buffer = gst_sample_get_buffer(sample);
  const uint64_t n = GST_BUFFER_OFFSET(buffer);
  bool ok = n == c->frames && gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
            gst_video_frame_map(&frame, &info, buffer, GST_MAP_READ);
  if (ok) {
    const Rgba want = frame_colour(n);
    guint wrong = 0;
    Rgba seen{};
    for (gint y = 0; y < GST_VIDEO_FRAME_HEIGHT(&frame); ++y) {
      const auto *row = static_cast<const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)) +
                        y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
      for (gint x = 0; x < GST_VIDEO_FRAME_WIDTH(&frame); ++x) {
        const Rgba px{row[4 * x], row[4 * x + 1], row[4 * x + 2], row[4 * x + 3]};
        if (!(px == want) && wrong++ == 0)
          seen = px;
      }
    }
    gst_video_frame_unmap(&frame);
    if (wrong) {
      std::fprintf(stderr, "frame %" G_GUINT64_FORMAT ": %u pixels wrong, e.g. frame %u's colour\n",
                   n, wrong, guint(seen.r) | guint(seen.g) << 8);
      ok = false;
    }
  } else {
    std::fprintf(stderr, "frame %u: arrived as %" G_GUINT64_FORMAT " or cannot be mapped\n",
                 c->frames, n);
  }
  c->bad_frames += !ok;
  ++c->frames;
  gst_sample_unref(sample);
  g_usleep(c->slow_ms * 1000);  // a slow consumer: the bridge falls behind the producer
  return GST_FLOW_OK;
}

// Wraps slot @slot's image as frame @n, with its gate (none with --unsafe).
GstBuffer *wrap_frame(VkApp &app, const ImageRing &ring, uint32_t slot, uint64_t n,
                      const Options &o, KeepAlive &keep, EfSlotGate *gate, uint64_t value) {
  const EfClientState state{&keep, on_retain, on_release};
  EfVkImage *image = nullptr;
  // The uuid lets the bridge refuse an image of another device; the
  // keep-alive is retained now and released when the last copy goes.
  if (ef_vk_image_wrap(uint64_t(ring.image(slot)), app.device(), app.instance(),
                       app.physical_device(), app.uuid(), ring.row_pitch(), &state, &image) != 0)
    return nullptr;
  ef_vk_image_set_dimensions(image, o.width, o.height);
  ef_vk_image_set_format(image, EF_PIXEL_FORMAT_RGBA8);
  if (gate)
    ef_vk_image_set_acquire_release(image, gate, value);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer,
                           gst_ef_vk_image_memory_new(image, gsize(o.width) * o.height * 4));
  ef_vk_image_free(image);  // the memory holds its own copy
  GST_BUFFER_OFFSET(buffer) = n;
  GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(n, GST_SECOND, 30);
  GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
  return buffer;
}

bool wait_for_eos(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *m = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND,
                                             GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  bool eos = m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
  if (m && !eos) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(m, &error, &debug);
    std::fprintf(stderr, "error from %s: %s (%s)\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(m)),
                 error->message, debug ? debug : "");
    g_clear_error(&error);
    g_free(debug);
  }
  if (m)
    gst_message_unref(m);
  gst_object_unref(bus);
  return eos;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  Options o;
  if (!parse_args(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: vk_producer [--frames N] [--ring N] [--size WxH] [--slow-ms M] "
                 "[--unsafe]\n");
    return 2;
  }
  std::string why;
  auto app = VkApp::create(&why);
  if (!app) {
    std::printf("SKIP: %s\n", why.c_str());
    return kExitSkip;
  }
  auto ring = ImageRing::create(*app, o.ring, o.width, o.height, &why);
  if (!ring) {
    std::fprintf(stderr, "cannot make the image ring: %s\n", why.c_str());
    return 1;
  }
  std::printf("device: %s%s\n", app->name().c_str(), app->validation() ? " (validation on)" : "");

  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src format=time block=false max-bytes=0 ! efvkbridge name=bridge ! "
      "appsink name=sink sync=false enable-last-sample=false caps=video/x-raw,format=RGBA",
      &error);
  if (!pipeline) {
    std::fprintf(stderr, "cannot make the pipeline: %s\n", error->message);
    return 1;
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gchar *caps = g_strdup_printf("video/x-raw(" GST_CAPS_FEATURE_MEMORY_EF_VK_IMAGE
                                "),format=RGBA,width=%u,height=%u,framerate=30/1",
                                o.width, o.height);
  GstCaps *src_caps = gst_caps_from_string(caps);
  g_free(caps);
  g_object_set(src, "caps", src_caps, nullptr);
  gst_caps_unref(src_caps);
  Checker checker;
  checker.slow_ms = o.slow_ms;
  GstAppSinkCallbacks callbacks{};
  callbacks.new_sample = on_sample;
  gst_app_sink_set_callbacks(GST_APP_SINK(sink), &callbacks, &checker, nullptr);

  app->share_with(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);

  EfSlotRing *gates = nullptr;
  ef_slot_ring_new(o.ring, &gates);
  std::vector<EfSlotGate *> last_gate(o.ring, nullptr);
  std::vector<uint64_t> last_value(o.ring, 0);
  std::vector<KeepAlive> keep_alives(o.frames);
  guint waits = 0, failures = 0;
  for (uint64_t n = 0; n < o.frames && !failures; ++n) {
    const uint32_t slot = uint32_t(n % o.ring);
    EfSlotGate *gate = nullptr;
    uint64_t value = 0;
    if (!o.unsafe) {
      // Would the acquire block? Only for counting: acquire does the wait.
      uint64_t armed = 0;
      if (last_gate[slot] && ef_slot_gate_value(last_gate[slot], &armed) == 0 &&
          armed < last_value[slot])
        ++waits;
      if (int r = ef_slot_ring_acquire(gates, slot, kAcquireTimeoutNs, &gate, &value); r != 0) {
        std::fprintf(stderr, "slot %u: %s\n", slot, ef_last_error());
        ++failures;
        break;
      }
      if (last_gate[slot])
        ef_slot_gate_unref(last_gate[slot]);
      last_gate[slot] = gate;  // keeps acquire's reference
      last_value[slot] = value;
    }
    if (!ring->render(slot, n, &why)) {
      std::fprintf(stderr, "frame %" G_GUINT64_FORMAT ": %s\n", n, why.c_str());
      ++failures;
      break;
    }
    GstBuffer *buffer = wrap_frame(*app, *ring, slot, n, o, keep_alives[n], gate, value);
    if (!buffer || gst_app_src_push_buffer(GST_APP_SRC(src), buffer) != GST_FLOW_OK) {
      std::fprintf(stderr, "frame %" G_GUINT64_FORMAT ": cannot push: %s\n", n, ef_last_error());
      ++failures;
    }
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  const bool eos = !failures && wait_for_eos(pipeline);

  GstStructure *stats = nullptr;
  GstElement *bridge = gst_bin_get_by_name(GST_BIN(pipeline), "bridge");
  g_object_get(bridge, "stats", &stats, nullptr);
  gst_object_unref(bridge);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipeline);  // the last copies of the wrappers go with it

  guint bad_keep_alives = 0;
  for (const KeepAlive &k : keep_alives)
    bad_keep_alives += k.retains != 1 || k.releases != 1;
  for (EfSlotGate *g : last_gate)
    if (g)
      ef_slot_gate_unref(g);
  ef_slot_ring_free(gates);
  ring.reset();

  guint64 downloads = 0, copies = 0;
  gst_structure_get_uint64(stats, "downloads", &downloads);
  gst_structure_get_uint64(stats, "copies", &copies);
  gst_structure_free(stats);
  std::printf("ring %u, %ux%u%s: %u frames pushed, %u checked, %u wrong; acquire waited %u times\n",
              o.ring, o.width, o.height, o.unsafe ? " (unsafe: no gates)" : "", o.frames,
              checker.frames, checker.bad_frames, waits);
  std::printf("efvkbridge: downloads %" G_GUINT64_FORMAT ", CPU copies %" G_GUINT64_FORMAT
              "; keep-alives not released exactly once: %u of %u\n",
              downloads, copies, bad_keep_alives, o.frames);
  std::printf("validation messages: %" G_GUINT64_FORMAT "\n", app->validation_messages());
  const bool ok = eos && !failures && checker.frames == o.frames && checker.bad_frames == 0 &&
                  bad_keep_alives == 0 && app->validation_messages() == 0;
  app.reset();
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
