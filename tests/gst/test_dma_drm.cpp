// SPDX-License-Identifier: LGPL-2.1-or-later
// ef against the stock elements' dma-buf caps of GStreamer 1.24 and later
// (format=DMA_DRM, drm-format=FOURCC[:0xMODIFIER]), in real pipelines:
// gldownload's dma-bufs into efupload and efconvert, efconvert's into
// glupload, a modifier the importers cannot take, and memfds carried between
// two pipelines by unixfdsink/unixfdsrc. One meson test per case
// (CK_RUN_CASE), so each prints SKIP with its own reason where what it needs
// is missing (GStreamer 1.22, no dma-buf export, no unixfd plugin).
#include <gst/allocators/allocators.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/gl/egl/gstglmemoryegl.h>
#include <gst/gl/gl.h>
#include <gst/video/video.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"

using namespace ef::test;

namespace {

#if GST_CHECK_VERSION(1, 24, 0)

struct Outcome {
  bool eos = false;
  std::string errors;    // every ERROR text, "; "-separated
  std::string warnings;  // every WARNING text
};

std::string message_text(GstMessage *msg) {
  GError *error = nullptr;
  gchar *debug = nullptr;
  if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR)
    gst_message_parse_error(msg, &error, &debug);
  else
    gst_message_parse_warning(msg, &error, &debug);
  std::string text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(msg))) + ": " + error->message;
  if (debug)
    text += std::string(" | ") + debug;
  g_error_free(error);
  g_free(debug);
  return text;
}

// Plays `pipeline` until EOS, the first error, `done()` or `timeout`,
// collecting what the bus said; leaves it in NULL.
Outcome play(
    GstElement *pipeline, GstClockTime timeout = 60 * GST_SECOND,
    const std::function<bool()> &done = [] { return false; }) {
  Outcome out;
  GstBus *bus = gst_element_get_bus(pipeline);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  const GstClockTime deadline = gst_util_get_timestamp() + timeout;
  while (gst_util_get_timestamp() < deadline && !done()) {
    GstMessage *msg = gst_bus_timed_pop_filtered(
        bus, 100 * GST_MSECOND,
        GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING));
    if (!msg)
      continue;
    const GstMessageType type = GST_MESSAGE_TYPE(msg);
    if (type == GST_MESSAGE_EOS)
      out.eos = true;
    else
      (type == GST_MESSAGE_ERROR ? out.errors : out.warnings) += message_text(msg) + "; ";
    gst_message_unref(msg);
    if (type != GST_MESSAGE_WARNING)
      break;
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  return out;
}

GstElement *parse(const std::string &launch) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(launch.c_str(), &error);
  fail_unless(pipeline && !error, "cannot build %s: %s", launch.c_str(),
              error ? error->message : "?");
  return pipeline;
}

GstElement *by_name(GstElement *pipeline, const char *name) {
  GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline), name);
  fail_unless(e != nullptr, "no element %s", name);
  gst_object_unref(e);  // the bin keeps it
  return e;
}

// 64x48 frames already in GL memory, read back by gldownload as dma-bufs.
const std::string kGlDmabufSource =
    "gltestsrc num-buffers=30 pattern=snow ! "
    "video/x-raw(memory:GLMemory),format=RGBA,width=64,height=48,framerate=30/1 ! gldownload ! "
    "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=AB24 ! ";

}  // namespace

// gldownload's DMA_DRM output negotiates with efupload and is imported
// frame by frame: no frame is copied.
GST_START_TEST(test_gldownload_into_efupload) {
  GstElement *p = parse(kGlDmabufSource +
                        "efupload name=u ! video/x-raw(memory:GLMemory) ! "
                        "fakesink enable-last-sample=false");
  GstElement *u = by_name(p, "u");
  Outcome run = play(p);
  fail_unless(run.eos && run.errors.empty(), "did not run: %s", run.errors.c_str());
  std::printf("gldownload ! efupload: frames %" G_GUINT64_FORMAT " imports %" G_GUINT64_FORMAT
              " hits %" G_GUINT64_FORMAT " uploads %" G_GUINT64_FORMAT "\n",
              stat(u, "frames"), stat(u, "imports"), stat(u, "hits"), stat(u, "uploads"));
  fail_unless_equals_uint64(stat(u, "frames"), 30);
  fail_unless(stat(u, "imports") >= 1);
  fail_unless_equals_uint64(stat(u, "imports") + stat(u, "hits"), 30);
  fail_unless_equals_uint64(stat(u, "uploads"), 0);
  fail_unless_equals_uint64(stat(u, "declines"), 0);
  gst_object_unref(p);
}
GST_END_TEST;

// The same into efconvert, on both backends: the GL one imports the
// dma-bufs as textures, the CPU one maps them; neither uploads or declines.
GST_START_TEST(test_gldownload_into_efconvert) {
  for (const char *backend : {"gl", "cpu"}) {
    GstElement *p = parse(kGlDmabufSource + "efconvert name=c backend=" + backend +
                          " ! video/x-raw,format=RGB,width=33,height=17 ! "
                          "fakesink enable-last-sample=false");
    GstElement *c = by_name(p, "c");
    Outcome run = play(p);
    fail_unless(run.eos && run.errors.empty(), "backend %s did not run: %s", backend,
                run.errors.c_str());
    std::printf("gldownload ! efconvert backend=%s: frames %" G_GUINT64_FORMAT
                " src-misses %" G_GUINT64_FORMAT " src-hits %" G_GUINT64_FORMAT
                " uploads %" G_GUINT64_FORMAT " declines %" G_GUINT64_FORMAT "\n",
                backend, stat(c, "frames"), stat(c, "src-misses"), stat(c, "src-hits"),
                stat(c, "uploads"), stat(c, "declines"));
    fail_unless_equals_uint64(stat(c, "frames"), 30);
    fail_unless_equals_uint64(stat(c, "src-misses") + stat(c, "src-hits"), 30);
    fail_unless_equals_uint64(stat(c, "uploads"), 0);
    fail_unless_equals_uint64(stat(c, "declines"), 0);
    gst_object_unref(p);
  }
}
GST_END_TEST;

namespace {
GstPadProbeReturn count_egl_memory(GstPad *, GstPadProbeInfo *info, gpointer data) {
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER(info);
  auto *counts = static_cast<std::atomic<int> *>(data);
  counts[0]++;
  if (gst_buffer_n_memory(buffer) > 0 && gst_is_gl_memory_egl(gst_buffer_peek_memory(buffer, 0)))
    counts[1]++;
  return GST_PAD_PROBE_OK;
}
}  // namespace

// efconvert's DMA_DRM output (memfds it renders into) negotiates with
// glupload, which imports each frame as an EGLImage (GstGLMemoryEGL out)
// instead of uploading it; efconvert reads nothing back.
GST_START_TEST(test_efconvert_into_glupload) {
  GstElement *p = parse(
      "videotestsrc num-buffers=30 pattern=zone-plate ! "
      "video/x-raw,format=NV12,width=62,height=46 ! efconvert name=c backend=cpu ! "
      "video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=AB24,width=62,height=46 ! "
      "glupload name=g  capsfilter name=f caps=\"video/x-raw(memory:GLMemory)\" ! "
      "fakesink enable-last-sample=false");
  // Linked unchecked: without its GL context glupload cannot yet say that
  // DMA_DRM becomes GL memory, so a checked link at build time fails. Forced
  // to GL memory, glupload cannot pass the dma-bufs through as they are.
  GstPad *from = gst_element_get_static_pad(by_name(p, "g"), "src");
  GstPad *to = gst_element_get_static_pad(by_name(p, "f"), "sink");
  fail_unless_equals_int(gst_pad_link_full(from, to, GST_PAD_LINK_CHECK_NOTHING), GST_PAD_LINK_OK);
  gst_object_unref(from);
  gst_object_unref(to);
  GstElement *c = by_name(p, "c");
  std::atomic<int> counts[2] = {0, 0};
  GstPad *pad = gst_element_get_static_pad(by_name(p, "g"), "src");
  gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, count_egl_memory, counts, nullptr);
  gst_object_unref(pad);
  Outcome run = play(p);
  fail_unless(run.eos && run.errors.empty(), "did not run: %s", run.errors.c_str());
  std::printf(
      "efconvert ! glupload: %d frames out of glupload, %d as EGLImages; efconvert "
      "readbacks %" G_GUINT64_FORMAT "\n",
      counts[0].load(), counts[1].load(), stat(c, "readbacks"));
  fail_unless_equals_int(counts[0].load(), 30);
  fail_unless_equals_int(counts[1].load(), 30);
  fail_unless_equals_uint64(stat(c, "readbacks"), 0);
  gst_object_unref(p);
}
GST_END_TEST;

namespace {
// An Intel X-tiled layout: no ef importer reads tiled bytes, so each must
// refuse it at negotiation (a LINEAR read of it would be a wrong image).
constexpr const char *kTiled = "AB24:0x0100000000000001";

// Caps of only the tiled layout sent to the importer (the caps event, as a
// decoder or a capturing source sends it): refused, with a message naming
// the layout, and no frame goes through. (A source that asks by caps query
// first, as appsrc does, fails its own negotiation before sending anything.)
void check_refused(const char *importer, const char *out_caps) {
  GstHarness *h = gst_harness_new_parse(importer);
  gst_harness_set_sink_caps(h, gst_caps_from_string(out_caps));
  GstBus *bus = attach_bus(h);
  GstCaps *tiled =
      gst_caps_from_string((std::string("video/x-raw(memory:DMABuf),format=DMA_DRM,drm-format=") +
                            kTiled + ",width=64,height=48,framerate=30/1")
                               .c_str());
  // Sticky: stored on the harness's pad whatever the importer says, and
  // offered again with the frame.
  gst_pad_push_event(h->srcpad, gst_event_new_caps(tiled));
  GstSegment segment;
  gst_segment_init(&segment, GST_FORMAT_TIME);
  gst_pad_push_event(h->srcpad, gst_event_new_segment(&segment));
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  fail_unless_equals_int(gst_harness_push(h, memfd_frame(info, 1)), GST_FLOW_NOT_NEGOTIATED);
  fail_unless(gst_harness_try_pull(h) == nullptr);
  std::string said;
  while (GstMessage *msg =
             gst_bus_pop_filtered(bus, GstMessageType(GST_MESSAGE_WARNING | GST_MESSAGE_ERROR))) {
    said += message_text(msg) + "; ";
    gst_message_unref(msg);
  }
  std::printf("%s: %s\n", importer, said.c_str());
  fail_unless(said.find(kTiled) != std::string::npos,
              "%s: no message names the refused drm-format: %s", importer, said.c_str());
  gst_element_set_bus(h->element, nullptr);
  gst_bus_set_flushing(bus, TRUE);
  gst_object_unref(bus);
  gst_harness_teardown(h);
}
}  // namespace

GST_START_TEST(test_untaken_modifier_refused) {
  check_refused("efupload", "video/x-raw(memory:GLMemory)");
  check_refused("efconvert backend=cpu", "video/x-raw,format=RGB");
  check_refused("efconvert backend=gl", "video/x-raw,format=RGB");
}
GST_END_TEST;

// memfds carried to another pipeline by unixfdsink -> unixfdsrc arrive as
// new fds wrapped in new memories every frame; their identity is the inode,
// so efupload's cache hits once the producer's pool has come round.
GST_START_TEST(test_unixfd_keeps_identities) {
  const char *dir = g_getenv("XDG_RUNTIME_DIR");
  if (!dir || access(dir, W_OK) != 0)
    dir = g_get_tmp_dir();
  gchar *socket = g_strdup_printf("%s/ef-test-unixfd-%d.sock", dir, int(getpid()));
  unlink(socket);
  constexpr int kFrames = 60;
  GstElement *producer =
      parse("videotestsrc num-buffers=" + std::to_string(kFrames) +
            " pattern=zone-plate ! video/x-raw,format=RGBA,width=62,height=46,framerate=60/1 ! "
            "unixfdsink socket-path=" +
            socket);
  // Prerolled, the producer's socket exists and its first frame waits, so
  // the consumer connects before any frame is sent.
  gst_element_set_state(producer, GST_STATE_PAUSED);
  fail_unless(gst_element_get_state(producer, nullptr, nullptr, 10 * GST_SECOND) !=
              GST_STATE_CHANGE_FAILURE);
  GstElement *consumer = parse(std::string("unixfdsrc socket-path=") + socket +
                               " ! efupload name=u ! video/x-raw(memory:GLMemory) ! "
                               "fakesink enable-last-sample=false");
  GstElement *u = by_name(consumer, "u");
  gst_element_set_state(consumer, GST_STATE_PLAYING);
  gst_element_get_state(consumer, nullptr, nullptr, 10 * GST_SECOND);
  gst_element_set_state(producer, GST_STATE_PLAYING);
  Outcome run =
      play(consumer, 30 * GST_SECOND, [u] { return stat(u, "frames") >= guint64(kFrames); });
  gst_element_set_state(producer, GST_STATE_NULL);
  gst_object_unref(producer);
  unlink(socket);
  g_free(socket);
  std::printf("unixfdsrc ! efupload: frames %" G_GUINT64_FORMAT " imports %" G_GUINT64_FORMAT
              " hits %" G_GUINT64_FORMAT " uploads %" G_GUINT64_FORMAT
              " declines %" G_GUINT64_FORMAT " (%s%s)\n",
              stat(u, "frames"), stat(u, "imports"), stat(u, "hits"), stat(u, "uploads"),
              stat(u, "declines"), run.eos ? "EOS" : "no EOS", run.errors.c_str());
  fail_unless(run.errors.empty(), "%s", run.errors.c_str());
  fail_unless_equals_uint64(stat(u, "frames"), kFrames);
  fail_unless_equals_uint64(stat(u, "uploads"), 0);
  // The producer's pool holds a handful of memfds: every later frame in one
  // of them is a hit, though it came as a new fd in a new GstMemory.
  fail_unless(stat(u, "imports") <= 16, "imported %" G_GUINT64_FORMAT " times", stat(u, "imports"));
  fail_unless_equals_uint64(stat(u, "imports") + stat(u, "hits"), kFrames);
  gst_object_unref(consumer);
}
GST_END_TEST;

namespace {

// Whether gldownload's DMA_DRM buffers hold real dma-bufs: on a GL without
// dma-buf export (llvmpipe) it still negotiates, and wraps fd -1.
// What the fd of a frame's memory is, judged here independently of ef's own
// rule: "" for a dma-buf (DMA_BUF_MAGIC) or memfd that holds the memory's
// bytes, else what it is ("its buffers carry ..."). gldownload on Debian
// forky (GStreamer 1.28, llvmpipe) hands out fd 0, which in a test process is
// /dev/null: not -1, but no buffer either.
std::string unusable_fd(GstMemory *mem) {
  if (!gst_is_fd_memory(mem))
    return "memory that is not fd memory";
  const int fd = gst_fd_memory_get_fd(mem);
  const std::string name = "fd " + std::to_string(fd);
  struct stat st;
  struct statfs sfs;
  if (fd < 0 || fstat(fd, &st) != 0 || fstatfs(fd, &sfs) != 0)
    return name + ", not an open file";
  char link[256] = "";
  const ssize_t n =
      readlink(("/proc/self/fd/" + std::to_string(fd)).c_str(), link, sizeof link - 1);
  if (n > 0)
    link[n] = '\0';
  const bool dmabuf = sfs.f_type == 0x444d4142;  // DMA_BUF_MAGIC
  const bool memfd = S_ISREG(st.st_mode) && std::string(link).rfind("/memfd:", 0) == 0;
  if (!dmabuf && !memfd)
    return name + " (" + link + "), neither a dma-buf nor a memfd";
  if (st.st_size < off_t(mem->offset + mem->size))
    return name + " (" + link + ") of " + std::to_string(st.st_size) + " bytes, " +
           std::to_string(mem->offset + mem->size) + " in its memory";
  return "";
}

bool gldownload_exports(std::string &why) {
  GError *error = nullptr;
  GstElement *p = gst_parse_launch((kGlDmabufSource + "fakesink name=s").c_str(), &error);
  if (!p || error) {
    why = error ? error->message : "cannot build the pipeline";
    g_clear_error(&error);
    return false;
  }
  // Every frame's verdict; the first unusable one is kept.
  struct Seen {
    int frames = 0;
    std::string unusable;
  } seen;
  GstElement *sink = gst_bin_get_by_name(GST_BIN(p), "s");
  GstPad *pad = gst_element_get_static_pad(sink, "sink");
  gst_object_unref(sink);
  gst_pad_add_probe(
      pad, GST_PAD_PROBE_TYPE_BUFFER,
      [](GstPad *, GstPadProbeInfo *info, gpointer data) {
        auto *seen = static_cast<Seen *>(data);
        seen->frames++;
        std::string why = unusable_fd(gst_buffer_peek_memory(GST_PAD_PROBE_INFO_BUFFER(info), 0));
        if (seen->unusable.empty())
          seen->unusable = why;
        return GST_PAD_PROBE_OK;
      },
      &seen, nullptr);
  gst_object_unref(pad);
  Outcome run = play(p, 20 * GST_SECOND);
  gst_object_unref(p);
  if (!run.eos || !run.errors.empty()) {
    why = "gldownload ! DMA_DRM did not run (" + run.errors + ")";
    return false;
  }
  if (seen.frames == 0) {
    why = "no frame came out of gldownload";
    return false;
  }
  if (!seen.unusable.empty()) {
    why = "its buffers carry " + seen.unusable;
    return false;
  }
  return true;
}

bool have_element(const char *name, std::string &why) {
  GstElementFactory *f = gst_element_factory_find(name);
  if (!f) {
    why = std::string("no ") + name + " element (gst-plugins-bad's unixfd plugin, 1.24+)";
    return false;
  }
  gst_object_unref(f);
  return true;
}

Suite *dma_drm_suite() {
  Suite *s = suite_create("dma_drm");
  struct Case {
    const char *name;
    TFun test;
  };
  for (const Case &c : {Case{"gldownload_efupload", test_gldownload_into_efupload},
                        Case{"gldownload_efconvert", test_gldownload_into_efconvert},
                        Case{"efconvert_glupload", test_efconvert_into_glupload},
                        Case{"refuse_modifier", test_untaken_modifier_refused},
                        Case{"unixfd", test_unixfd_keeps_identities}}) {
    TCase *tc = tcase_create(c.name);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, c.test);
    suite_add_tcase(s, tc);
  }
  return s;
}

// What the case named by CK_RUN_CASE needs besides GL with dma-buf import.
bool case_precondition(std::string &why) {
  const std::string name = g_getenv("CK_RUN_CASE") ? g_getenv("CK_RUN_CASE") : "";
  if (name.rfind("gldownload", 0) == 0) {
    std::string detail;
    if (!probe_in_child(gldownload_exports, detail)) {
      why = "gldownload exports no usable dma-buf on this GL: " + detail;
      return false;
    }
  }
  if (name == "unixfd") {
    const char *dir = EF_GST_SYSTEM_PLUGINS_DIR "/libgstunixfd.so";
    if (access(dir, R_OK) == 0)
      gst_plugin_load_file(dir, nullptr);
    return have_element("unixfdsink", why) && have_element("unixfdsrc", why);
  }
  return true;
}

}  // namespace

int main(int argc, char **argv) {
  gst_check_init(&argc, &argv);
  std::string why;
  if (!probe_in_child(Needs::EglDmabufImport, why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  // Here, not in a child: the unixfd plugin it loads must be in the
  // registry the forked tests inherit.
  if (!case_precondition(why)) {
    std::printf("SKIP: %s\n", why.c_str());
    return 77;
  }
  SRunner *runner = srunner_create(dma_drm_suite());
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}

#else  // GStreamer 1.22

}  // namespace

int main() {
  std::printf(
      "SKIP: DMA_DRM caps and unixfdsink/unixfdsrc need GStreamer 1.24 or later; this is "
      "%d.%d.%d\n",
      GST_VERSION_MAJOR, GST_VERSION_MINOR, GST_VERSION_MICRO);
  return 77;
}

#endif
