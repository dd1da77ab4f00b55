// SPDX-License-Identifier: LGPL-2.1-or-later
#include "stress.hpp"

#include "common/state_name.hpp"

#include <dirent.h>
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include <gst/check/gstcheck.h>

namespace ef::stress {

namespace {

struct Case {
  std::string name;
  std::function<void()> body;
  int timeout_s;
};

std::vector<Case> &cases() {
  static std::vector<Case> all;
  return all;
}

std::vector<std::string> &skips() {
  static std::vector<std::string> all;
  return all;
}

void run_case(int index) {
  cases()[size_t(index)].body();
}

// Check's loop tests pass the index; one TCase per case names it.
GST_START_TEST(stress_case) {
  run_case(__i__);
}
GST_END_TEST;

double mean(std::vector<double>::const_iterator begin, std::vector<double>::const_iterator end) {
  if (begin == end)
    return 0;
  return std::accumulate(begin, end, 0.0) / double(end - begin);
}

// Runs `probe` in a child; its exit status 0 means available.
std::string probe_in_child(const char *what, const std::function<std::string()> &probe) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string why = probe();
    if (!why.empty())
      std::fprintf(stderr, "%s\n", why.c_str());
    std::fflush(stderr);
    _exit(why.empty() ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return "";
  return std::string(what) + " unavailable (the reason is printed above)";
}

std::string first_error_of(const char *description) {
  GError *error = nullptr;
  GstElement *pipeline = gst_parse_launch(description, &error);
  if (!pipeline) {
    std::string why = error ? error->message : "cannot parse";
    g_clear_error(&error);
    return why;
  }
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus(pipeline);
  GstMessage *msg = gst_bus_timed_pop_filtered(bus, 20 * GST_SECOND,
                                               GstMessageType(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  std::string why;
  if (!msg) {
    why = std::string("no EOS within 20 s from: ") + description;
  } else if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError *err = nullptr;
    gst_message_parse_error(msg, &err, nullptr);
    why = std::string(description) + ": " + err->message;
    g_error_free(err);
  }
  if (msg)
    gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(pipeline);
  return why;
}

}  // namespace

int scale() {
  const char *v = std::getenv("EF_STRESS_LONG");
  if (!v || !*v)
    return 1;
  int n = std::atoi(v);
  return n > 1 ? n : 10;
}

void add(const std::string &name, std::function<void()> body, int timeout_s) {
  cases().push_back({name, std::move(body), timeout_s * scale()});
}

void skip_group(const std::string &why) {
  skips().push_back(why);
}

void fail_case(const std::string &message) {
  ck_abort_msg("%s", message.c_str());
  std::abort();  // not reached: ck_abort_msg ends the forked case
}

int run(int argc, char **argv, const char *suite,
        const std::function<void(const std::string &group)> &register_cases) {
  gst_check_init(&argc, &argv);
  register_cases(argc > 1 ? argv[1] : "");
  for (const std::string &why : skips())
    std::printf("SKIP: %s\n", why.c_str());
  if (cases().empty())
    return skips().empty() ? 1 : 77;
  Suite *s = suite_create(suite);
  for (size_t i = 0; i < cases().size(); ++i) {
    TCase *tc = tcase_create(cases()[i].name.c_str());
    tcase_set_timeout(tc, cases()[i].timeout_s);
    tcase_add_loop_test(tc, stress_case, int(i), int(i) + 1);
    suite_add_tcase(s, tc);
  }
  SRunner *runner = srunner_create(s);
  srunner_set_fork_status(runner, CK_FORK);
  srunner_run_all(runner, CK_ENV);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}

double open_fds() {
  DIR *dir = opendir("/proc/self/fd");
  if (!dir)
    return -1;
  double n = 0;
  while (dirent *entry = readdir(dir))
    if (entry->d_name[0] != '.')
      ++n;
  closedir(dir);
  return n - 1;  // the directory's own fd
}

double rss_kib() {
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (!f)
    return -1;
  long size = 0, resident = 0;
  if (std::fscanf(f, "%ld %ld", &size, &resident) != 2)
    resident = -1;
  std::fclose(f);
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / 1024.0;
}

double buffer_mappings_kib() {
  FILE *f = std::fopen("/proc/self/maps", "r");
  if (!f)
    return -1;
  double kib = 0;
  char line[4096];
  while (std::fgets(line, sizeof line, f)) {
    unsigned long start = 0, end = 0;
    char path[4096] = "";
    if (std::sscanf(line, "%lx-%lx %*s %*s %*s %*s %4095[^\n]", &start, &end, path) < 2)
      continue;
    if (std::strncmp(path, "/memfd:", 7) == 0 || std::strstr(path, "dmabuf"))
      kib += double(end - start) / 1024.0;
  }
  std::fclose(f);
  return kib;
}

double heap_in_use_kib() {
  const struct mallinfo2 info = mallinfo2();
  return double(info.uordblks + info.hblkhd) / 1024.0;
}

double Series::growth() const {
  const size_t n = samples.size();
  if (n < 3)
    return 0;
  auto a = samples.begin() + long(n / 3), b = samples.begin() + long(2 * n / 3);
  return mean(b, samples.end()) - mean(a, b);
}

std::string Series::summary() const {
  if (samples.empty())
    return what + ": no samples";
  const size_t n = samples.size();
  auto a = samples.begin() + long(n / 3), b = samples.begin() + long(2 * n / 3);
  char text[256];
  std::snprintf(text, sizeof text, "%s: first %.0f, middle third %.0f, last third %.0f, last %.0f",
                what.c_str(), samples.front(), mean(a, b), mean(b, samples.end()), samples.back());
  return text;
}

std::string Series::check(double allowed) const {
  if (growth() <= allowed)
    return "";
  char text[64];
  std::snprintf(text, sizeof text, " (grew by more than %.0f)", allowed);
  return summary() + text;
}

Pipeline::Pipeline(const std::string &description) {
  GError *error = nullptr;
  pipeline_ = gst_parse_launch(description.c_str(), &error);
  if (!pipeline_ || error) {
    std::string why = error ? error->message : "unknown";
    g_clear_error(&error);
    fail_case("cannot build '" + description + "': " + why);
  }
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline_), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline_), "sink");
  src_ = src ? GST_APP_SRC(src) : nullptr;
  sink_ = sink ? GST_APP_SINK(sink) : nullptr;
  bus_ = gst_element_get_bus(pipeline_);
}

Pipeline::~Pipeline() {
  gst_element_set_state(pipeline_, GST_STATE_NULL);
  if (src_)
    gst_object_unref(src_);
  if (sink_)
    gst_object_unref(sink_);
  gst_object_unref(bus_);
  gst_object_unref(pipeline_);
}

GstElement *Pipeline::element(const char *name) const {
  GstElement *e = gst_bin_get_by_name(GST_BIN(pipeline_), name);
  if (e)
    gst_object_unref(e);  // the bin keeps it
  return e;
}

using ef::gst::state_name;

void Pipeline::set_state(GstState state, int timeout_ms) {
  GstStateChangeReturn r = gst_element_set_state(pipeline_, state);
  // PAUSED and PLAYING complete when the sink prerolls the first frame: the
  // pulls that follow bound that wait.
  if (r == GST_STATE_CHANGE_ASYNC && state >= GST_STATE_PAUSED) {
    poll_bus();
    return;
  }
  if (r == GST_STATE_CHANGE_ASYNC)
    r = gst_element_get_state(pipeline_, nullptr, nullptr, GstClockTime(timeout_ms) * GST_MSECOND);
  poll_bus();
  if (r == GST_STATE_CHANGE_FAILURE)
    fail_case(std::string("state change to ") + state_name(state) + " failed: " + errors());
  if (r == GST_STATE_CHANGE_ASYNC)
    fail_case(std::string("hang: state change to ") + state_name(state) + " not done within " +
              std::to_string(timeout_ms) + " ms");
}

void Pipeline::set_caps(GstCaps *caps) {
  gst_app_src_set_caps(src_, caps);
  gst_caps_unref(caps);
}

void Pipeline::push(GstBuffer *buffer) {
  GstFlowReturn r = gst_app_src_push_buffer(src_, buffer);
  if (r != GST_FLOW_OK && r != GST_FLOW_FLUSHING && r != GST_FLOW_EOS)
    fail_case(std::string("appsrc refused a buffer: ") + gst_flow_get_name(r));
}

GstSample *Pipeline::pull(int timeout_ms) {
  // Slices, so an error stops the wait at once.
  for (int waited = 0; waited < timeout_ms; waited += 50) {
    if (GstSample *s = gst_app_sink_try_pull_sample(sink_, 50 * GST_MSECOND))
      return s;
    poll_bus();
    for (const BusMessage &m : messages_)
      if (m.type == GST_MESSAGE_ERROR)
        return nullptr;
  }
  return nullptr;
}

void Pipeline::poll_bus(int timeout_ms) {
  GstClockTime wait = GstClockTime(timeout_ms) * GST_MSECOND;
  while (GstMessage *msg = gst_bus_timed_pop_filtered(
             bus_, wait, GstMessageType(GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))) {
    GError *error = nullptr;
    gchar *debug = nullptr;
    const bool is_error = GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR;
    if (is_error)
      gst_message_parse_error(msg, &error, &debug);
    else
      gst_message_parse_warning(msg, &error, &debug);
    std::string text = error ? error->message : "";
    if (debug)
      text += std::string(" | ") + debug;
    messages_.push_back({GST_MESSAGE_TYPE(msg), GST_OBJECT_NAME(GST_MESSAGE_SRC(msg)), text});
    g_clear_error(&error);
    g_free(debug);
    gst_message_unref(msg);
    wait = 0;
    if (is_error)
      break;
  }
}

const BusMessage *Pipeline::wait_error_or_warning(int timeout_ms) {
  for (int waited = 0; messages_.empty() && waited < timeout_ms; waited += 50)
    poll_bus(50);
  return messages_.empty() ? nullptr : &messages_.front();
}

std::string Pipeline::errors() const {
  std::string all;
  for (const BusMessage &m : messages_)
    all += std::string(m.type == GST_MESSAGE_ERROR ? "ERROR " : "WARNING ") + m.source + ": " +
           m.text + "\n";
  return all;
}

bool Pipeline::has_error() const {
  for (const BusMessage &m : messages_)
    if (m.type == GST_MESSAGE_ERROR)
      return true;
  return false;
}

bool has_property(gpointer object, const char *name) {
  return g_object_class_find_property(G_OBJECT_GET_CLASS(object), name) != nullptr;
}

std::string gl_missing() {
  return probe_in_child("GL", [] {
    return first_error_of(
        "videotestsrc num-buffers=1 ! video/x-raw,format=NV12,width=16,height=16 ! "
        "efconvert backend=gl ! video/x-raw,format=RGBA ! fakesink");
  });
}

std::string vulkan_missing() {
  return probe_in_child("Vulkan", [] {
    return first_error_of(
        "videotestsrc num-buffers=1 ! video/x-raw,format=RGBA,width=16,height=16 ! "
        "efvkbridge release-timeout=0 ! fakesink");
  });
}

}  // namespace ef::stress
