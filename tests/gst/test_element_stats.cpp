// SPDX-License-Identifier: LGPL-2.1-or-later
// ElementStats and the pad templates, below any element: a small element
// type declares its counters once and gets the "stats" property (one
// structure) and the EOS message from the helper.
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>

#include <string>

#include "common/element_stats.hpp"
#include "common/pad_templates.hpp"

using namespace ef::gst;

namespace {

struct TestCounters {
  enum Counter : guint { kFrames, kHits, kPeak, kCount };
  static constexpr const char *kName = "efteststats-stats";
  static constexpr std::array<CounterSpec, kCount> kSpecs = {{
      {kFrames, "frames", "Frames"},
      {kHits, "hits", "Hits, from elsewhere"},
      {kPeak, "peak", "A peak"},
  }};
};
using TestStats = ElementStats<TestCounters>;

constexpr guint PROP_STATS = 1;

constexpr const char *kSinkCaps = "video/x-raw, format=(string)NV12";
constexpr const char *kSrcCaps = "video/x-raw, format=(string)RGBA";

struct TestElement {
  GstElement parent;
  TestStats *stats;
};
struct TestElementClass {
  GstElementClass parent_class;
};

G_DEFINE_TYPE(TestElement, test_element, GST_TYPE_ELEMENT)

void test_element_get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec) {
  auto *self = reinterpret_cast<TestElement *>(object);
  if (!self->stats->get_property(PROP_STATS, id, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
}

void test_element_finalize(GObject *object) {
  delete reinterpret_cast<TestElement *>(object)->stats;
  G_OBJECT_CLASS(test_element_parent_class)->finalize(object);
}

void test_element_class_init(TestElementClass *klass) {
  GObjectClass *object_class = G_OBJECT_CLASS(klass);
  object_class->get_property = test_element_get_property;
  object_class->finalize = test_element_finalize;
  TestStats::install_property(object_class, PROP_STATS);
  add_pad_templates(GST_ELEMENT_CLASS(klass), kSinkCaps, kSrcCaps);
}

void test_element_init(TestElement *self) {
  self->stats = new TestStats();
  self->stats->derive([](TestStats::Values &v) { v[TestCounters::kHits] = 42; });
}

guint64 read_counter(GstElement *element, const char *name) {
  GstStructure *s = nullptr;
  g_object_get(element, "stats", &s, nullptr);
  guint64 value = 0;
  fail_unless(s && gst_structure_get_uint64(s, name, &value), "no %s in stats", name);
  gst_structure_free(s);
  return value;
}

}  // namespace

// The counters are fields of "stats", not properties of their own (what
// gst-inspect lists stays the settings); the blurb of "stats" names each
// field, and for the manual what each counts.
GST_START_TEST(test_counters_in_stats_only) {
  auto *element = GST_ELEMENT(g_object_new(test_element_get_type(), nullptr));
  TestStats &stats = *reinterpret_cast<TestElement *>(element)->stats;
  stats.add(TestCounters::kFrames);
  stats.add(TestCounters::kFrames, 4);
  stats.raise(TestCounters::kPeak, 7);
  stats.raise(TestCounters::kPeak, 3);  // a peak never goes down
  fail_unless_equals_uint64(read_counter(element, "frames"), 5);
  fail_unless_equals_uint64(read_counter(element, "hits"), 42);  // derived
  fail_unless_equals_uint64(read_counter(element, "peak"), 7);
  guint n = 0;
  GParamSpec **specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(element), &n);
  g_free(specs);
  fail_unless_equals_int(n, 1 + 2);  // "stats", and GstObject's name and parent
  for (const char *counter : {"frames", "hits", "peak"})
    fail_if(g_object_class_find_property(G_OBJECT_GET_CLASS(element), counter), "%s", counter);
  GParamSpec *spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), "stats");
  fail_unless(spec != nullptr);
  // gst-inspect's blurb is short: the names; the manual's (EF_STATS_BLURB=full)
  // says what each counts.
  const std::string blurb = g_param_spec_get_blurb(spec);
  fail_unless(blurb.find("efteststats-stats") != std::string::npos, "%s", blurb.c_str());
  fail_unless(blurb.find("Fields: frames, hits, peak.") != std::string::npos, "%s", blurb.c_str());
  fail_unless(blurb.find("Hits, from elsewhere") == std::string::npos, "%s", blurb.c_str());
  const std::string full = stats_blurb(TestCounters::kName, TestCounters::kSpecs, true);
  fail_unless(full.find("Fields: frames: Frames; hits: Hits, from elsewhere; peak: A peak") !=
                  std::string::npos,
              "%s", full.c_str());
  fail_if(spec->flags & G_PARAM_WRITABLE);
  gst_object_unref(element);
}
GST_END_TEST;

GST_START_TEST(test_stats_structure) {
  auto *element = GST_ELEMENT(g_object_new(test_element_get_type(), nullptr));
  reinterpret_cast<TestElement *>(element)->stats->add(TestCounters::kFrames, 2);
  GstStructure *s = nullptr;
  g_object_get(element, "stats", &s, nullptr);
  fail_unless(s != nullptr);
  fail_unless(gst_structure_has_name(s, "efteststats-stats"));
  fail_unless_equals_int(gst_structure_n_fields(s), 3);
  guint64 v = 0;
  fail_unless(gst_structure_get_uint64(s, "frames", &v));
  fail_unless_equals_uint64(v, 2);
  fail_unless(gst_structure_get_uint64(s, "hits", &v));
  fail_unless_equals_uint64(v, 42);
  gst_structure_free(s);
  gst_object_unref(element);
}
GST_END_TEST;

GST_START_TEST(test_eos_message) {
  auto *element = GST_ELEMENT(g_object_new(test_element_get_type(), nullptr));
  GstBus *bus = gst_bus_new();
  gst_element_set_bus(element, bus);
  reinterpret_cast<TestElement *>(element)->stats->add(TestCounters::kFrames, 3);
  reinterpret_cast<TestElement *>(element)->stats->post(element);
  GstMessage *m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT);
  fail_unless(m != nullptr);
  const GstStructure *s = gst_message_get_structure(m);
  fail_unless(gst_structure_has_name(s, "efteststats-stats"));
  guint64 v = 0;
  fail_unless(gst_structure_get_uint64(s, "frames", &v));
  fail_unless_equals_uint64(v, 3);
  gst_message_unref(m);
  gst_element_set_bus(element, nullptr);
  gst_object_unref(bus);
  gst_object_unref(element);
}
GST_END_TEST;

// The templates hold the only reference on their caps: a second one, the
// parsed caps never given back, is a leak per element class.
GST_START_TEST(test_pad_templates_own_their_caps) {
  auto *klass = GST_ELEMENT_CLASS(g_type_class_ref(test_element_get_type()));
  for (const char *name : {"sink", "src"}) {
    GstPadTemplate *templ = gst_element_class_get_pad_template(klass, name);
    fail_unless(templ != nullptr, "no %s template", name);
    fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(GST_PAD_TEMPLATE_CAPS(templ)), 1);
  }
  GstPadTemplate *sink = gst_element_class_get_pad_template(klass, "sink");
  GstCaps *expected = gst_caps_from_string(kSinkCaps);
  fail_unless(gst_caps_is_equal(GST_PAD_TEMPLATE_CAPS(sink), expected));
  gst_caps_unref(expected);
  fail_unless_equals_int(GST_PAD_TEMPLATE_DIRECTION(sink), GST_PAD_SINK);
  g_type_class_unref(klass);
}
GST_END_TEST;

static Suite *element_stats_suite() {
  Suite *s = suite_create("element_stats");
  TCase *tc = tcase_create("stats");
  tcase_add_test(tc, test_counters_in_stats_only);
  tcase_add_test(tc, test_stats_structure);
  tcase_add_test(tc, test_eos_message);
  tcase_add_test(tc, test_pad_templates_own_their_caps);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(element_stats);
