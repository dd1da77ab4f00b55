// SPDX-License-Identifier: LGPL-2.1-or-later
#include "frame_rings.hpp"

#include <gst/app/gstappsink.h>
#include <gst/gl/gstglfuncs.h>

namespace ef::bench {

ProgramGl::ProgramGl() {
  display = gst_gl_display_new();
  context = gst_gl_context_new(display);
  GError *raw = nullptr;
  if (!gst_gl_context_create(context, nullptr, &raw)) {
    error = std::string("no GL context: ") + (raw ? raw->message : "unknown error");
    g_clear_error(&raw);
    return;
  }
  gst_gl_display_add_context(display, context);
  gst_gl_context_thread_add(
      context,
      [](GstGLContext *ctx, gpointer data) {
        auto *self = static_cast<ProgramGl *>(data);
        auto text = [ctx](GLenum name) {
          const GLubyte *s = ctx->gl_vtable->GetString(name);
          return std::string(s ? reinterpret_cast<const char *>(s) : "?");
        };
        self->renderer = text(GL_RENDERER);
        self->version = text(GL_VERSION);
      },
      this);
}

ProgramGl::~ProgramGl() {
  if (context)
    gst_object_unref(context);
  if (display)
    gst_object_unref(display);
}

GstPadProbeReturn answer_gl_context(GstPad *, GstPadProbeInfo *info, gpointer data) {
  auto *answer = static_cast<ContextAnswer *>(data);
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY(info);
  if (GST_QUERY_TYPE(query) == GST_QUERY_CONTEXT &&
      gst_gl_handle_context_query(answer->element, query, answer->gl->display, answer->gl->context,
                                  nullptr))
    return GST_PAD_PROBE_HANDLED;
  return GST_PAD_PROBE_OK;
}

std::vector<GstSample *> FrameRing::pull(guint slots, const char *pattern) {
  GstElement *pipeline = gst_parse_launch(
      (std::string("videotestsrc pattern=") + pattern +
       " horizontal-speed=37 num-buffers=" + std::to_string(slots) +
       " ! video/x-raw,format=NV12,width=1920,height=1080,framerate=30/1 ! appsink name=sink "
       "sync=false")
          .c_str(),
      nullptr);
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  std::vector<GstSample *> pictures;
  for (guint i = 0; i < slots; ++i)
    if (GstSample *s = gst_app_sink_pull_sample(GST_APP_SINK(sink)))
      pictures.push_back(s);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  if (pictures.size() != slots) {
    error_ = "videotestsrc gave no frames";
    return pictures;
  }
  gst_video_info_from_caps(&info_, gst_sample_get_caps(pictures[0]));
  caps_ = gst_video_info_to_caps(&info_);
  return pictures;
}

FrameRing::FrameRing(guint slots, const char *pattern) {
  for (GstSample *picture : pull(slots, pattern)) {
    frames_.push_back(gst_buffer_ref(gst_sample_get_buffer(picture)));
    gst_sample_unref(picture);
  }
}

FrameRing::FrameRing(guint slots, const char *pattern, GstGLContext *context) {
  const std::vector<GstSample *> pictures = pull(slots, pattern);
  if (error_.empty())
    fill_gl(pictures, context);
  for (GstSample *picture : pictures)
    gst_sample_unref(picture);
}

// A GL map of a texture written through the CPU uploads it: done here, so
// that no element uploads anything.
void FrameRing::fill_gl(const std::vector<GstSample *> &pictures, GstGLContext *context) {
  gst_caps_set_features(caps_, 0,
                        gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, nullptr));
  gst_caps_set_simple(caps_, "texture-target", G_TYPE_STRING, "2D", nullptr);
  const guint slots = guint(pictures.size());
  pool_ = gst_gl_buffer_pool_new(context);
  GstStructure *config = gst_buffer_pool_get_config(pool_);
  gst_buffer_pool_config_set_params(config, caps_, guint(info_.size), slots, slots);
  gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config(pool_, config) || !gst_buffer_pool_set_active(pool_, TRUE)) {
    error_ = "cannot configure a GL pool of NV12 textures";
    return;
  }
  for (GstSample *picture : pictures) {
    GstBuffer *frame = nullptr;
    GstVideoFrame from, to;
    if (gst_buffer_pool_acquire_buffer(pool_, &frame, nullptr) != GST_FLOW_OK ||
        !gst_video_frame_map(&from, &info_, gst_sample_get_buffer(picture), GST_MAP_READ)) {
      error_ = "cannot fill a GL ring slot";
      return;
    }
    if (gst_video_frame_map(&to, &info_, frame, GST_MAP_WRITE)) {
      gst_video_frame_copy(&to, &from);
      gst_video_frame_unmap(&to);
    }
    gst_video_frame_unmap(&from);
    for (guint i = 0; i < gst_buffer_n_memory(frame); ++i) {
      GstMemory *mem = gst_buffer_peek_memory(frame, i);
      GstMapInfo map;
      if (gst_memory_map(mem, &map, GstMapFlags(GST_MAP_READ | GST_MAP_GL)))
        gst_memory_unmap(mem, &map);
    }
    frames_.push_back(frame);
  }
}

FrameRing::~FrameRing() {
  for (GstBuffer *b : frames_)
    gst_buffer_unref(b);
  if (pool_) {
    gst_buffer_pool_set_active(pool_, FALSE);
    gst_object_unref(pool_);
  }
  if (caps_)
    gst_caps_unref(caps_);
}

}  // namespace ef::bench
