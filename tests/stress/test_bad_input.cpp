// SPDX-License-Identifier: LGPL-2.1-or-later
// The bad-input corpus through appsrc, into every element: strides shorter
// than a row or running past the end, truncated buffers, plane offsets past
// the end, empty buffers, a DONT_CLOSE fd memory whose fd was closed before
// the push, a format no element takes, and caps of 100000x100000. Each must
// give an error or a warning on the bus with a text, never a crash, a hang or
// an output made of the bad bytes; then a good frame must come out right
// (after a restart when the bad frame stopped the pipeline with an error).
// Where the element has max-errors (warning-and-drop policy), the frame-level
// cases run again with max-errors=-1: a warning, and the next frame right
// without a restart.
#include <gst/allocators/allocators.h>
#include <unistd.h>

#include <functional>
#include <memory>

#include "chains.hpp"
#include "frames.hpp"

using namespace ef::stress;

namespace {

constexpr int kMessageWaitMs = 3000;

// A memfd-backed buffer of `bytes` bytes (none: an empty buffer) whose
// GstVideoMeta says `meta`.
GstBuffer *frame_with_meta(const GstVideoInfo &meta, gsize bytes) {
  GstBuffer *buffer = gst_buffer_new();
  if (bytes > 0) {
    GstAllocator *alloc = gst_fd_allocator_new();
    gst_buffer_append_memory(
        buffer, gst_fd_allocator_alloc(alloc, ef::test::make_memfd("ef-stress-bad", bytes), bytes,
                                       GST_FD_MEMORY_FLAG_NONE));
    gst_object_unref(alloc);
  }
  GstVideoInfo m = meta;
  gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&m),
                                 GST_VIDEO_INFO_WIDTH(&m), GST_VIDEO_INFO_HEIGHT(&m),
                                 GST_VIDEO_INFO_N_PLANES(&m), m.offset, m.stride);
  return buffer;
}

using BadFrame = std::function<GstBuffer *(const GstVideoInfo &)>;

struct Corpus {
  const char *name;
  BadFrame make;
  // The bytes may still be right (a mapping kept by the element): an
  // output is then checked instead of refused.
  bool output_may_be_right;
  // Times the case runs, each in a new pipeline: for defects that show
  // only in some runs.
  int repeat = 1;
};

const std::vector<Corpus> &corpus() {
  static const std::vector<Corpus> all = {
      {"stride_shorter_than_row",
       [](const GstVideoInfo &in) {
         GstVideoInfo bad = in;
         bad.stride[0] =
             GST_VIDEO_INFO_COMP_WIDTH(&in, 0) * GST_VIDEO_INFO_COMP_PSTRIDE(&in, 0) - 1;
         return frame_with_meta(bad, in.size);
       },
       false},
      {"stride_past_the_end",
       [](const GstVideoInfo &in) {
         GstVideoInfo bad = in;
         bad.stride[0] = 4096;
         return frame_with_meta(bad, in.size);
       },
       false},
      {"truncated", [](const GstVideoInfo &in) { return frame_with_meta(in, in.size / 2); }, false},
      {"offset_past_the_end",
       [](const GstVideoInfo &in) {
         GstVideoInfo bad = in;
         bad.offset[GST_VIDEO_INFO_N_PLANES(&in) - 1] = in.size + 4096;
         return frame_with_meta(bad, in.size);
       },
       false},
      {"empty_buffer", [](const GstVideoInfo &in) { return frame_with_meta(in, 0); }, false},
      {"fd_closed_before_push",
       [](const GstVideoInfo &in) {
         int fd = ef::test::make_memfd("ef-stress-closed", in.size);
         GstBuffer *frame = ramp_frame_in_fd(fd, in, 7);
         close(fd);
         return frame;
       },
       true, 10},
  };
  return all;
}

// A good frame, the bad one, the message it must cause, a good frame again:
// in the same pipeline when it went on (a warning), else in a new one (a
// restart of the same pipeline is the lifecycle cases' subject).
void bad_frame_once(const Chain &chain, const Corpus &bad, const std::string &options,
                    bool expect_warning_only) {
  const std::string what = chain.name + " " + bad.name;
  auto p = std::make_unique<Pipeline>(pipeline_text(chain, options));
  if (chain.gl)
    p->share_gl_display();
  p->set_caps(gst_video_info_to_caps(&chain.in));
  p->set_state(GST_STATE_PLAYING);
  std::string why = push_and_check(*p, chain, ramp_frame(chain.in, Memory::Memfd, 1));
  if (!why.empty())
    fail_case(what + ": the good frame before: " + why);
  GstBuffer *frame = bad.make(chain.in);
  p->push(frame);
  if (GstSample *sample = p->pull(500)) {
    why = bad.output_may_be_right ? check_output(chain, sample, frame) : "an output came out";
    gst_sample_unref(sample);
    if (!why.empty())
      fail_case(what + ": a bad frame gave an output, not an error: " + why);
    std::printf("%s: converted from bytes the element kept (right)\n", what.c_str());
  } else {
    const BusMessage *m = p->wait_error_or_warning(kMessageWaitMs);
    if (!m)
      fail_case(what + ": neither an output nor an error or warning on the bus within " +
                std::to_string(kMessageWaitMs) + " ms");
    if (m->text.empty())
      fail_case(what + ": a message without text from " + m->source);
    std::printf("%s: %s", what.c_str(), p->errors().c_str());
    if (expect_warning_only && m->type != GST_MESSAGE_WARNING)
      fail_case(what + " with " + options + ": an error, not a warning:\n" + p->errors());
  }
  std::string after = "";
  if (p->has_error()) {
    p = std::make_unique<Pipeline>(pipeline_text(chain, options));
    if (chain.gl)
      p->share_gl_display();
    p->set_caps(gst_video_info_to_caps(&chain.in));
    p->set_state(GST_STATE_PLAYING);
    after = " (in a new pipeline, the first stopped with an error)";
  }
  why = push_and_check(*p, chain, ramp_frame(chain.in, Memory::Memfd, 2));
  if (!why.empty())
    fail_case(what + ": the good frame after" + after + ": " + why);
}

void bad_frame_case(const Chain &chain, const Corpus &bad, const std::string &options,
                    bool expect_warning_only) {
  for (int i = 0; i < bad.repeat * scale(); ++i)
    bad_frame_once(chain, bad, options, expect_warning_only);
}

// Caps the element cannot take: an error naming why, no crash, no hang.
void caps_case(const Chain &chain, GstCaps *caps, const std::vector<std::string> &must_name) {
  Pipeline p(pipeline_text(chain));
  p.set_caps(caps);
  p.set_state(GST_STATE_PLAYING);
  GstVideoInfo small = video_info(GST_VIDEO_INFO_FORMAT(&chain.in), 16, 16);
  p.push(frame_with_meta(small, small.size));
  if (GstSample *sample = p.pull(500)) {
    gst_sample_unref(sample);
    fail_case(chain.name + ": an output for caps it cannot take");
  }
  const BusMessage *m = p.wait_error_or_warning(kMessageWaitMs);
  if (!m)
    fail_case(chain.name + ": no error or warning within " + std::to_string(kMessageWaitMs) +
              " ms");
  const std::string all = p.errors();
  std::printf("%s: %s", chain.name.c_str(), all.c_str());
  if (must_name.empty())
    return;
  for (const std::string &word : must_name)
    if (all.find(word) != std::string::npos)
      return;
  std::string words;
  for (const std::string &word : must_name)
    words += " '" + word + "'";
  fail_case(chain.name + ": the message names no limit (none of" + words + "):\n" + all);
}

// An out-of-Vulkan bridge given system memory where VkImage memories belong.
void not_an_image_case() {
  Pipeline p("appsrc name=src format=time ! efvkbridge name=e ! appsink name=sink sync=false");
  GstVideoInfo info = video_info(GST_VIDEO_FORMAT_RGBA, 16, 16);
  GstCaps *caps = gst_video_info_to_caps(&info);
  gst_caps_set_features(caps, 0, gst_caps_features_new("memory:EfVkImage", nullptr));
  p.set_caps(caps);
  p.set_state(GST_STATE_PLAYING);
  p.push(gst_buffer_new_allocate(nullptr, info.size, nullptr));
  if (GstSample *sample = p.pull(500)) {
    gst_sample_unref(sample);
    fail_case("efvkbridge out of Vulkan: an output for a buffer without VkImage memory");
  }
  if (!p.wait_error_or_warning(kMessageWaitMs))
    fail_case("efvkbridge out of Vulkan: no error or warning for a buffer without VkImage memory");
  std::printf("efvkbridge not an image: %s", p.errors().c_str());
}

bool element_has(const char *factory, const char *property) {
  GstElement *e = gst_element_factory_make(factory, nullptr);
  const bool has = e && has_property(e, property);
  if (e)
    gst_object_unref(e);
  return has;
}

void register_cases(const std::string &group) {
  g_setenv("EF_VK_VALIDATION", "0", TRUE);
  for (const Chain &chain : available_chains()) {
    if (!group.empty() && group != chain.name)
      continue;
    const std::string factory = chain.name.substr(0, chain.name.find('-'));
    const bool max_errors = element_has(factory.c_str(), "max-errors");
    std::printf("%s %s max-errors\n", factory.c_str(), max_errors ? "has" : "has no");
    for (const Corpus &bad : corpus()) {
      add(chain.name + "/" + bad.name, [chain, &bad] { bad_frame_case(chain, bad, "", false); });
      if (max_errors)
        add(chain.name + "/" + bad.name + "_max_errors_-1",
            [chain, &bad] { bad_frame_case(chain, bad, "max-errors=-1", true); });
    }
    add(chain.name + "/unsupported_format", [chain] {
      caps_case(chain,
                gst_caps_from_string("video/x-raw,format=v210,width=16,height=16,framerate=0/1"),
                {});
    });
    add(chain.name + "/caps_100000x100000", [chain] {
      GstVideoInfo huge = chain.in;
      huge.width = huge.height = 100000;
      GstCaps *caps = gst_caps_new_simple(
          "video/x-raw", "format", G_TYPE_STRING,
          gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&chain.in)), "width", G_TYPE_INT, 100000,
          "height", G_TYPE_INT, 100000, "framerate", GST_TYPE_FRACTION, 0, 1, nullptr);
      caps_case(chain, caps, {"limit", "maximum", "at most", "too large", "exceeds"});
    });
    if (chain.vulkan)
      add(chain.name + "/out_of_vulkan_not_an_image", not_an_image_case);
  }
}

}  // namespace

int main(int argc, char **argv) {
  return run(argc, argv, "stress-bad-input", register_cases);
}
