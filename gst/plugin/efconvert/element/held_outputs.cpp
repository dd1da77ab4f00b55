// SPDX-License-Identifier: LGPL-2.1-or-later
#include "held_outputs.hpp"

#include <string>
#include <utility>

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

GstFlowReturn HeldOutputs::release_oldest(GstElement *element, ConvertBackend *backend,
                                          FrameErrors &errors, GstBuffer **out) {
  const Held held = held_.front();
  held_.pop_front();
  counted();
  if (held.in_flight) {
    auto done = backend->complete_oldest();
    if (!done || *done != held.buffer) {
      gst_buffer_unref(held.buffer);
      return refuse_frame(
          element, errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FAILED,
          "Read-back failed: " + (done ? std::string("frames out of order") : done.error().message),
          std::string("backend ") + backend->name());
    }
  }
  *out = held.buffer;
  return GST_FLOW_OK;
}

GstFlowReturn HeldOutputs::pass(GstElement *element, ConvertBackend *backend, FrameErrors &errors,
                                guint depth, GstBuffer **out) {
  if (*out && (last_in_flight_ || !held_.empty())) {
    held_.push_back({*out, last_in_flight_});
    counted();
    *out = nullptr;
  }
  GstFlowReturn ret = GST_FLOW_OK;
  if (held_.size() > depth_now(depth))
    ret = release_oldest(element, backend, errors, out);
  primed_ = primed_ || *out != nullptr;
  return ret;
}

void HeldOutputs::drop(ConvertBackend *backend) {
  primed_ = false;
  if (held_.empty())
    return;
  if (backend)
    backend->drop_in_flight();
  for (const Held &held : held_)
    gst_buffer_unref(held.buffer);
  GST_DEBUG("dropped %zu held outputs", held_.size());
  held_.clear();
  counted();
}

void HeldOutputs::drain(GstElement *element, GstPad *src, ConvertBackend *backend,
                        FrameErrors &errors) {
  while (!held_.empty()) {
    GstBuffer *out = nullptr;
    if (release_oldest(element, backend, errors, &out) != GST_FLOW_OK)
      continue;
    const GstFlowReturn pushed = gst_pad_push(src, out);
    primed_ = true;
    if (pushed != GST_FLOW_OK) {
      GST_DEBUG_OBJECT(element, "drain: push returned %s", gst_flow_get_name(pushed));
      drop(backend);
    }
  }
}

void HeldOutputs::left_playing(std::function<void()> job) {
  set_playing(false);
  // The streaming thread holds outputs only where it finds playing_ set
  // after it counted them: nothing counted now, nothing held later.
  if (any())
    drainer_.request(std::move(job));
}

}  // namespace ef::gst
