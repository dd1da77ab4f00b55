// SPDX-License-Identifier: LGPL-2.1-or-later
#include "harness.hpp"

#include "frames.hpp"
#include "sanitized.hpp"

#include <gst/allocators/allocators.h>
#include <gst/check/gstcheck.h>

#include <cstdio>
#include <utility>
#include <vector>

#include <sys/wait.h>

namespace ef::test {

GstElement *harness_element(GstHarness *h, const char *name) {
  GstElement *e = gst_bin_get_by_name(GST_BIN(h->element), name);
  if (e)
    gst_object_unref(e);  // the bin holds it for the harness's lifetime
  return e;
}

std::string string_property(GstElement *element, const char *name) {
  gchar *value = nullptr;
  g_object_get(element, name, &value, nullptr);
  std::string s = value ? value : "";
  g_free(value);
  return s;
}

guint64 stat(GstElement *element, const char *counter) {
  GstStructure *stats = nullptr;
  g_object_get(element, "stats", &stats, nullptr);
  guint64 v = 0;
  const bool found = stats && gst_structure_get_uint64(stats, counter, &v);
  if (stats)
    gst_structure_free(stats);
  fail_unless(found, "%s: no counter %s in its stats", GST_ELEMENT_NAME(element), counter);
  return v;
}

GstBus *attach_bus(GstHarness *h) {
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(h->element, bus);
  return bus;
}

void release_bus(GstBus *bus) {
  // Queued messages (state changes above all) hold their source elements, and
  // the element holds this bus: without the flush neither is ever freed.
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
}

namespace {

// The text of the first message of `type` (ERROR or WARNING) on `bus`,
// "message | debug"; the messages before it are dropped.
std::string pop_text(GstBus *bus, GstMessageType type) {
  while (GstMessage *msg = gst_bus_pop(bus)) {
    if (GST_MESSAGE_TYPE(msg) == type) {
      GError *error = nullptr;
      gchar *debug = nullptr;
      if (type == GST_MESSAGE_ERROR)
        gst_message_parse_error(msg, &error, &debug);
      else
        gst_message_parse_warning(msg, &error, &debug);
      std::string text = error->message;
      if (debug)
        text += std::string(" | ") + debug;
      g_error_free(error);
      g_free(debug);
      gst_message_unref(msg);
      return text;
    }
    gst_message_unref(msg);
  }
  return "";
}

// Runs `pipeline` to its first ERROR or EOS (20 s at most): "element:
// message | debug" of the ERROR, "" otherwise; takes the pipeline.
std::string run_to_end(GstElement *pipeline) {
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, 20 * GST_SECOND,
                                               GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  std::string text;
  if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    gst_message_parse_error(msg, &error, &debug);
    text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(msg))) + ": " + error->message +
           (debug ? std::string(" | ") + debug : "");
    g_error_free(error);
    g_free(debug);
  }
  if (msg)
    gst_message_unref(msg);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipeline);
  return text;
}

}  // namespace

std::string pop_error(GstBus *bus) {
  return pop_text(bus, GST_MESSAGE_ERROR);
}

std::string pop_warning(GstBus *bus) {
  return pop_text(bus, GST_MESSAGE_WARNING);
}

std::string start_error(GstElement *element) {
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  const GstStateChangeReturn ret = gst_element_set_state(element, GST_STATE_PAUSED);
  std::string text = pop_error(bus);
  gst_element_set_state(element, GST_STATE_NULL);
  gst_element_set_bus(element, nullptr);
  release_bus(bus);
  fail_unless((ret == GST_STATE_CHANGE_FAILURE) == !text.empty(), "the start %s, and %s posted",
              ret == GST_STATE_CHANGE_FAILURE ? "failed" : "worked",
              text.empty() ? "no error was" : text.c_str());
  return text;
}

LaunchRun run_gst_launch(const std::string &line) {
  gchar **words = nullptr;
  GError *error = nullptr;
  fail_unless(g_shell_parse_argv(line.c_str(), nullptr, &words, &error), "%s",
              error ? error->message : line.c_str());
  if (kSanitized) {
    // gst-launch-1.0 is not instrumented: it cannot load a sanitized plugin.
    // Its words are parsed here as it parses them (its parse error, or the
    // first ERROR); the other legs run the tool itself.
    static bool said = false;
    if (!std::exchange(said, true))
      std::fprintf(stderr, "gst-launch-1.0 is not run under a sanitizer: its lines run here\n");
    GstElement *pipeline = gst_parse_launchv(const_cast<const gchar **>(words), &error);
    g_strfreev(words);
    LaunchRun run{1, error ? std::string("WARNING: erroneous pipeline: ") + error->message : ""};
    g_clear_error(&error);
    if (pipeline && run.output.empty()) {
      run.output = run_to_end(pipeline);
      run.status = run.output.empty() ? 0 : 1;
    } else if (pipeline) {
      gst_object_unref(pipeline);
    }
    return run;
  }
  gchar *tool = g_find_program_in_path("gst-launch-1.0");
  fail_unless(tool != nullptr, "gst-launch-1.0 is not on PATH (gstreamer1.0-tools)");
  std::vector<gchar *> args{const_cast<gchar *>("timeout"), const_cast<gchar *>("60"), tool};
  for (gchar **w = words; *w; ++w)
    args.push_back(*w);
  args.push_back(nullptr);
  gchar *out = nullptr, *err = nullptr;
  gint status = 0;
  fail_unless(g_spawn_sync(nullptr, args.data(), nullptr, G_SPAWN_SEARCH_PATH, nullptr, nullptr,
                           &out, &err, &status, &error),
              "%s", error ? error->message : line.c_str());
  g_strfreev(words);
  g_free(tool);
  LaunchRun run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::string(out) + err};
  g_free(out);
  g_free(err);
  return run;
}

std::string warning_text(GstMessage *msg) {
  GError *warning = nullptr;
  gst_message_parse_warning(msg, &warning, nullptr);
  std::string text = warning->message;
  g_error_free(warning);
  return text;
}

std::vector<std::string> pop_warnings(GstBus *bus) {
  std::vector<std::string> texts;
  while (GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING)) {
    texts.push_back(warning_text(msg));
    gst_message_unref(msg);
  }
  return texts;
}

namespace {

struct PoolOffer {
  GstAllocator *allocator;
  guint buffers;
};

GstPadProbeReturn answer_allocation(GstPad *, GstPadProbeInfo *info, gpointer data) {
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
  if (GST_QUERY_TYPE(query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  auto *offer = static_cast<PoolOffer *>(data);
  GstCaps *caps;
  gst_query_parse_allocation(query, &caps, nullptr);
  GstVideoInfo vinfo;
  video_info_of(caps, &vinfo);
  GstBufferPool *pool = gst_video_buffer_pool_new();
  GstStructure *config = gst_buffer_pool_get_config(pool);
  gst_buffer_pool_config_set_params(config, caps, guint(vinfo.size), offer->buffers,
                                    offer->buffers);
  if (offer->allocator)
    gst_buffer_pool_config_set_allocator(config, offer->allocator, nullptr);
  gst_buffer_pool_set_config(pool, config);
  gst_query_add_allocation_pool(query, pool, guint(vinfo.size), offer->buffers, offer->buffers);
  gst_object_unref(pool);
  return GST_PAD_PROBE_HANDLED;
}

}  // namespace

void offer_downstream_pool(GstHarness *h, GstAllocator *allocator, guint buffers) {
  offer_pool_on_pad(h->sinkpad, allocator, buffers);
}

void offer_pool_on_pad(GstPad *sinkpad, GstAllocator *allocator, guint buffers) {
  auto *offer =
      new PoolOffer{allocator ? GST_ALLOCATOR(gst_object_ref(allocator)) : nullptr, buffers};
  gst_pad_add_probe(sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, answer_allocation, offer,
                    [](gpointer data) {
                      auto *o = static_cast<PoolOffer *>(data);
                      if (o->allocator)
                        gst_object_unref(o->allocator);
                      delete o;
                    });
}

GstVideoInfo padded_info(GstVideoFormat format, guint width, guint height, guint pad_bytes,
                         guint pad_rows) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, width, height);
  gsize offset = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info); ++p) {
    guint rows = 0;
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c)
      if (GST_VIDEO_FORMAT_INFO_PLANE(info.finfo, c) == p)
        rows = GST_VIDEO_INFO_COMP_HEIGHT(&info, c);
    info.stride[p] += gint(pad_bytes);
    info.offset[p] = offset;
    offset += gsize(info.stride[p]) * (rows + pad_rows);
  }
  info.size = offset;
  return info;
}

namespace {

struct Tally {
  int warnings = 0;
  int errors = 0;
};

// Counts WARNING and ERROR messages on `bus`, each of which must contain
// `text`; others go.
Tally pop_messages(GstBus *bus, const char *text) {
  Tally t;
  while (GstMessage *msg = gst_bus_pop(bus)) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_WARNING) {
      gst_message_parse_warning(msg, &error, &debug);
      ++t.warnings;
    } else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error(msg, &error, &debug);
      ++t.errors;
    }
    if (error) {
      const std::string all = std::string(error->message) + " | " + (debug ? debug : "");
      fail_unless(all.find(text) != std::string::npos, "\"%s\" does not say \"%s\"", all.c_str(),
                  text);
      g_error_free(error);
      g_free(debug);
    }
    gst_message_unref(msg);
  }
  return t;
}

}  // namespace

int push_bad_frames(GstHarness *h, GstElement *element, GstBus *bus, gint max_errors, int n_bad,
                    const std::function<GstBuffer *()> &make_bad, const char *text) {
  g_object_set(element, "max-errors", max_errors, nullptr);
  const guint64 dropped_before = stat(element, "dropped");
  int errors = 0, drops = 0;
  for (int i = 1; i <= n_bad; ++i) {
    const bool fails = max_errors >= 0 && i > max_errors;
    const GstFlowReturn ret = gst_harness_push(h, make_bad());
    const Tally t = pop_messages(bus, text);
    if (fails) {
      fail_unless_equals_int(ret, GST_FLOW_ERROR);
      fail_unless_equals_int(t.errors, 1);
      fail_unless_equals_int(t.warnings, 0);
      ++errors;
    } else {
      // A dropped frame is no failure for upstream, and nothing comes out.
      fail_unless_equals_int(ret, GST_FLOW_OK);
      fail_unless_equals_int(t.warnings, 1);
      fail_unless_equals_int(t.errors, 0);
      fail_unless(gst_harness_try_pull(h) == nullptr, "bad frame %d came out", i);
      ++drops;
    }
  }
  fail_unless_equals_uint64(stat(element, "dropped") - dropped_before, guint64(drops));
  return errors;
}

void expect_not_a_buffer_refused(GstHarness *h, const GstVideoInfo &info,
                                 const std::function<void(uint32_t seed)> &good) {
  GstBus *bus = attach_bus(h);
  uint32_t seed = 1;
  for (NotABuffer kind : kNotABuffer) {
    NotABufferFrame bad = not_a_buffer_frame(kind, info, seed++);
    fail_unless_equals_int(gst_harness_push(h, bad.buffer), GST_FLOW_ERROR);
    GstBuffer *out = gst_harness_try_pull(h);
    fail_unless(out == nullptr, "a frame came out of %s", bad.says.c_str());
    const std::string error = pop_error(bus);
    for (const std::string &says : {bad.says, std::string("not a dma-buf, memfd or shared-memory")})
      fail_unless(error.find(says) != std::string::npos, "\"%s\" does not say \"%s\"",
                  error.c_str(), says.c_str());
    good(seed++);
  }
  release_bus(bus);
}

GstHarness *convert_harness_to(const std::string &props, const GstVideoInfo &in,
                               const char *out_caps) {
  GstHarness *h = gst_harness_new_parse(("efconvert name=conv " + props).c_str());
  GstCaps *caps = caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF);
  gst_harness_set_caps(h, caps, out_caps ? gst_caps_from_string(out_caps) : gst_caps_copy(caps));
  return h;
}

std::vector<guint8> buffer_bytes(GstBuffer *buffer) {
  GstMapInfo map;
  fail_unless(gst_buffer_map(buffer, &map, GST_MAP_READ));
  std::vector<guint8> bytes(map.data, map.data + map.size);
  gst_buffer_unmap(buffer, &map);
  return bytes;
}

std::vector<guint8> converted_bytes(GstHarness *h, const GstVideoInfo &in, uint32_t seed) {
  fail_unless_equals_int(gst_harness_push(h, memfd_frame(in, seed)), GST_FLOW_OK);
  GstBuffer *got = gst_harness_pull(h);
  fail_unless(got != nullptr, "no output for the frame of seed %u", seed);
  std::vector<guint8> bytes = buffer_bytes(got);
  gst_buffer_unref(got);
  return bytes;
}

void expect_convert_not_a_buffer_refused(const char *props) {
  GstVideoInfo in, out;
  // Rows of 186 bytes out: no multiple of 16.
  gst_video_info_set_format(&in, GST_VIDEO_FORMAT_RGBA, 62, 46);
  gst_video_info_set_format(&out, GST_VIDEO_FORMAT_RGB, 62, 46);
  GstHarness *h = gst_harness_new_parse((std::string("efconvert ") + props).c_str());
  gst_harness_set_caps(h, caps_for(in, GST_CAPS_FEATURE_MEMORY_DMABUF), caps_for(out));
  expect_not_a_buffer_refused(h, in, [&](uint32_t seed) {
    fail_unless_equals_int(gst_harness_push(h, memfd_frame(in, seed)), GST_FLOW_OK);
    GstBuffer *got = gst_harness_pull(h);
    fail_unless(got != nullptr, "no output for the good frame %u", seed);
    const std::string bad = check_from_rgba(got, out, seed);
    fail_unless(bad.empty(), "%s, good frame %u: %s", props, seed, bad.c_str());
    gst_buffer_unref(got);
  });
  gst_harness_teardown(h);
}

void expect_caps_refused(GstHarness *h, const char *in, const char *out, const char *says) {
  GstBus *bus = attach_bus(h);
  gst_harness_set_caps_str(h, in, out);
  fail_if(gst_harness_push(h, gst_buffer_new_allocate(nullptr, 64, nullptr)) == GST_FLOW_OK);
  const std::string error = pop_error(bus);
  fail_unless(error.find(says) != std::string::npos, "%s", error.c_str());
  fail_unless(error.find("Cannot parse caps") == std::string::npos, "%s", error.c_str());
  gst_object_unref(bus);
}

std::string warnings_during(const std::function<void()> &run) {
  std::string said;
  GstCheckLogFilterFunc keep = [](const gchar *, GLogLevelFlags, const gchar *message,
                                  gpointer text) -> gboolean {
    auto &all = *static_cast<std::string *>(text);
    all += (all.empty() ? "" : "\n") + std::string(message);
    return TRUE;  // handled: no "unexpected warning" failure
  };
  // GLib's refusal of a property value is a warning on Debian 12 and a
  // critical on Debian 13 (GLib 2.84): both are what a setter said.
  std::vector<GstCheckLogFilter *> filters;
  for (const char *domain : {static_cast<const char *>(nullptr), "GLib-GObject"})
    for (GLogLevelFlags level : {G_LOG_LEVEL_WARNING, G_LOG_LEVEL_CRITICAL})
      filters.push_back(gst_check_add_log_filter(
          domain, level, g_regex_new(".*", GRegexCompileFlags(0), GRegexMatchFlags(0), nullptr),
          keep, &said, nullptr));
  run();
  for (GstCheckLogFilter *f : filters)
    gst_check_remove_log_filter(f);
  return said;
}

std::string launch_error(const char *description) {
  GError *parse_error = nullptr;
  GstElement *pipeline = gst_parse_launch(description, &parse_error);
  fail_unless(pipeline && !parse_error, "%s: %s", description,
              parse_error ? parse_error->message : "no pipeline");
  return run_to_end(pipeline);
}

void expect_bounded_sides(GstPad *pad, const char *filter, gint limit) {
  GstCaps *filter_caps = filter ? gst_caps_from_string(filter) : nullptr;
  GstCaps *caps = gst_pad_query_caps(pad, filter_caps);
  fail_if(gst_caps_is_empty(caps));
  gchar *text = gst_caps_to_string(caps);
  for (guint i = 0; i < gst_caps_get_size(caps); ++i)
    for (const char *side : {"width", "height"}) {
      const GValue *v = gst_structure_get_value(gst_caps_get_structure(caps, i), side);
      fail_unless(v && GST_VALUE_HOLDS_INT_RANGE(v), "%s: %s", side, text);
      const gint max = gst_value_get_int_range_max(v);
      fail_unless(limit ? max == limit : max < G_MAXINT, "%s bounded by %d, not %d: %s", side, max,
                  limit, text);
    }
  g_free(text);
  gst_caps_unref(caps);
  if (filter_caps)
    gst_caps_unref(filter_caps);
}

}  // namespace ef::test
