// SPDX-License-Identifier: LGPL-2.1-or-later
#include "chains.hpp"

#include <gst/ef/gstef.h>

#include "frames.hpp"

#include <cmath>

namespace ef::stress {

namespace {

constexpr double kMinPsnr = 30.0;

std::vector<Chain> all_chains() {
  const GstVideoInfo nv12 = video_info(GST_VIDEO_FORMAT_NV12, 64, 48);
  const GstVideoInfo rgba = video_info(GST_VIDEO_FORMAT_RGBA, 64, 48);
  // A 2x reduction: the CPU backend scales its chroma on this path.
  const std::string rgb_out = " ! video/x-raw,format=RGB,width=32,height=24";
  return {
      {"efupload", "efupload name=e ! video/x-raw(memory:GLMemory) ! gldownload ! video/x-raw",
       true, true, false, nv12, "misses", "hits"},
      {"efconvert-cpu", "efconvert name=e backend=cpu letterbox=false" + rgb_out, false, false,
       false, nv12, "src-misses", "src-hits"},
      {"efconvert-gl", "efconvert name=e backend=gl letterbox=false" + rgb_out, false, true, false,
       nv12, "src-misses", "src-hits"},
      {"efvkbridge", "efvkbridge name=e", true, false, true, rgba, "misses", "hits"},
  };
}

}  // namespace

std::vector<Chain> available_chains() {
  const std::string no_gl = gl_missing(), no_vk = vulkan_missing();
  if (!no_gl.empty())
    skip_group("GL chains: " + no_gl);
  if (!no_vk.empty())
    skip_group("efvkbridge chains: " + no_vk);
  std::vector<Chain> chains;
  for (Chain &c : all_chains())
    if ((!c.gl || no_gl.empty()) && (!c.vulkan || no_vk.empty()))
      chains.push_back(c);
  return chains;
}

std::string pipeline_text(const Chain &chain, const std::string &element_options) {
  std::string middle = chain.middle;
  if (!element_options.empty())
    middle.insert(middle.find("name=e") + 6, " " + element_options);
  return "appsrc name=src format=time ! " + middle + " ! appsink name=sink sync=false";
}

std::string check_output(const Chain &chain, GstSample *sample, GstBuffer *input) {
  GstBuffer *out = gst_sample_get_buffer(sample);
  if (chain.vulkan) {
    GstEfVkImageMeta *meta = gst_buffer_get_ef_vk_image_meta(out);
    if (!meta)
      return "no GstEfVkImageMeta on the output";
    gst_ef_vk_image_meta_release(meta);
  }
  GstVideoInfo out_info;
  if (!ef::test::video_info_of(gst_sample_get_caps(sample), &out_info))
    return "the output caps are no video caps";
  GstBuffer *want = chain.exact ? gst_buffer_ref(input) : reference(input, chain.in, out_info);
  const double db = psnr(out, out_info, want, chain.exact ? chain.in : out_info);
  gst_buffer_unref(want);
  if (chain.exact && !std::isinf(db))
    return "the output differs from the input (" + std::to_string(db) + " dB)";
  if (db < kMinPsnr)
    return "the output is " + std::to_string(db) + " dB from GstVideoConverter";
  return "";
}

std::string push_and_check(Pipeline &p, const Chain &chain, GstBuffer *input, int timeout_ms) {
  p.push(gst_buffer_ref(input));
  GstSample *sample = p.pull(timeout_ms);
  std::string why;
  if (!sample)
    why = "no output within " + std::to_string(timeout_ms) + " ms\n" + p.errors();
  else
    why = check_output(chain, sample, input);
  if (sample)
    gst_sample_unref(sample);
  gst_buffer_unref(input);
  return why;
}

}  // namespace ef::stress
