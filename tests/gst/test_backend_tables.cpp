// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's one description of what it makes: each backend's table
// agrees with the code that converts (every format it lists is one the
// backend handles, and every format the backend handles is listed), the
// caps are the union of the tables, and a conversion goes to the backends
// whose tables have it.
#include <gst/video/video.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/gst_ptr.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "efconvert/caps/convert_caps.hpp"
#include "efconvert/backends/cpu/cpu_backend.hpp"
#include "efconvert/backends/cpu/cpu_converter.hpp"
#ifdef EF_HAVE_GSTGL
#include "efconvert/backends/cuda/cuda_backend.hpp"
#include "efconvert/backends/cuda/cuda_plan.hpp"
#include "efconvert/backends/gl/gl_backend.hpp"
#include "efconvert/backends/gl/gl_layout.hpp"
#include "efconvert/backends/gl/gl_tensor_words.hpp"
#endif

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

using namespace ef::gst;

namespace {

std::vector<GstVideoFormat> raw_formats() {
  guint n = 0;
  const GstVideoFormat *all = gst_video_formats_raw(&n);
  return {all, all + n};
}

bool listed(const std::vector<std::string> &names, GstVideoFormat f) {
  return std::find(names.begin(), names.end(), gst_video_format_to_string(f)) != names.end();
}

// The names a table lists for its inputs, or its outputs of `kind` in
// memory `m`.
std::vector<std::string> table_names(const BackendTable &t, bool outputs, OutputKind kind,
                                     FrameMemory m) {
  std::vector<std::string> names;
  for (const Production &row : t.rows) {
    if (outputs && (row.kind != kind || !(row.out & memory_bit(m))))
      continue;
    for (const std::string &n : outputs ? row.outputs : row.inputs)
      names.push_back(n);
  }
  return names;
}

ef::gst::CapsPtr caps(const char *text) {
  return ef::gst::CapsPtr(gst_caps_from_string(text));
}

// Whether `c` has a structure in memory `feature` whose format can be `format`.
bool offers(GstCaps *c, const char *feature, const char *format) {
  ef::gst::CapsPtr want(gst_caps_from_string(
      (std::string("video/x-raw(") + feature + "), format=" + format).c_str()));
  return gst_caps_can_intersect(c, want.get());
}

}  // namespace

GST_START_TEST(test_cpu_table_is_the_converter) {
  const BackendTable &t = cpu_table();
  for (GstVideoFormat f : raw_formats()) {
    const char *name = gst_video_format_to_string(f);
    fail_unless_equals_int(listed(table_names(t, false, OutputKind::Image, FrameMemory::System), f),
                           cpu_supports_input(f));
    for (FrameMemory m : {FrameMemory::System, FrameMemory::DmaBuf})
      fail_unless(listed(table_names(t, true, OutputKind::Image, m), f) == cpu_supports_output(f),
                  "%s out", name);
    fail_if(listed(table_names(t, true, OutputKind::Image, FrameMemory::Gl), f), "%s", name);
  }
}
GST_END_TEST;

#ifdef EF_HAVE_GSTGL
GST_START_TEST(test_gl_table_is_the_shader) {
  const BackendTable &t = gl_table();
  for (GstVideoFormat f : raw_formats()) {
    const char *name = gst_video_format_to_string(f);
    const auto out = gl::output_layout(f);
    fail_unless(listed(table_names(t, false, OutputKind::Image, FrameMemory::System), f) ==
                    gl::source_layout(f).has_value(),
                "%s in", name);
    for (FrameMemory m : {FrameMemory::System, FrameMemory::DmaBuf})
      fail_unless(listed(table_names(t, true, OutputKind::Image, m), f) == out.has_value(), "%s",
                  name);
    fail_unless(
        listed(table_names(t, true, OutputKind::Image, FrameMemory::Gl), f) == (out && out->pixels),
        "%s as GL memory", name);
  }
  // Tensors: every element type the compute pass lays out in whole words
  // (gl_tensor_words), in plain memory and as GL buffers, from what the
  // shader reads, and only where the context computes.
  for (TensorType type :
       {TensorType::Uint8, TensorType::Int8, TensorType::Float16, TensorType::Float32}) {
    TensorSpec spec;
    spec.type = type;
    spec.width = 5;
    spec.height = 3;
    const gl::TensorWords words = gl::tensor_words(spec);
    const bool laid_out = words.pixels * spec.element_bytes() == 4 && words.bytes >= spec.size();
    for (FrameMemory m : tensor_memories()) {
      const auto names = table_names(t, true, OutputKind::Tensor, m);
      const bool has = std::find(names.begin(), names.end(), tensor_type_name(type)) != names.end();
      fail_unless(has == laid_out, "%s tensors in %s", tensor_type_name(type), memory_kind(m).name);
    }
  }
  for (const Production &row : t.rows)
    fail_unless(row.compute == (row.kind == OutputKind::Tensor), "only tensors need compute");
}
GST_END_TEST;
#endif

#ifdef EF_HAVE_GSTGL
// The CUDA table lists what its pass reads and writes, and nothing else
// (cuda_plan's reads() and writes()), in CUDA memory in, plain memory out
// (images and tensors), and of the images a texel a pixel into GL textures.
GST_START_TEST(test_cuda_table_is_the_pass) {
  const BackendTable &t = cuda_table();
  const auto inputs = table_names(t, false, OutputKind::Image, FrameMemory::System);
  const auto outputs = table_names(t, true, OutputKind::Image, FrameMemory::System);
  for (GstVideoFormat f : raw_formats()) {
    fail_unless(listed(inputs, f) == cuda::reads(f), "%s", gst_video_format_to_string(f));
    fail_unless(listed(outputs, f) == cuda::writes(f), "%s", gst_video_format_to_string(f));
  }
  const auto textures = table_names(t, true, OutputKind::Image, FrameMemory::Gl);
  fail_unless(textures.size() == 4, "%zu GL formats", textures.size());
  for (const std::string &name : textures) {
    const auto layout = gl::output_layout(gst_video_format_from_string(name.c_str()));
    fail_unless(layout && layout->pixels, "%s: not a texel a pixel", name.c_str());
    fail_unless(listed(outputs, gst_video_format_from_string(name.c_str())), "%s", name.c_str());
  }
  // Tensors: every type the pass writes, into plain memory.
  const auto tensors = table_names(t, true, OutputKind::Tensor, FrameMemory::System);
  for (TensorType type :
       {TensorType::Uint8, TensorType::Int8, TensorType::Float16, TensorType::Float32}) {
    const bool has =
        std::find(tensors.begin(), tensors.end(), tensor_type_name(type)) != tensors.end();
    fail_unless(has == cuda::writes(type), "%s tensors", tensor_type_name(type));
  }
  fail_unless(tensors.size() == 4, "%zu tensor types", tensors.size());
  for (const Production &row : t.rows) {
    fail_unless(row.in == memory_bit(FrameMemory::Cuda));
    fail_unless(row.out == kPlainMemory ||
                (row.kind == OutputKind::Image && row.out == memory_bit(FrameMemory::Gl)));
  }
}
GST_END_TEST;
#endif

// The pad templates hold every format some table reads or makes, and no
// other: the source template what efconvert makes, the source pad's own
// template that and the frames attach-tensor passes through.
GST_START_TEST(test_templates_are_the_union) {
  ef::gst::CapsPtr sink(gst_caps_from_string(sink_template_caps().c_str()));
  ef::gst::CapsPtr src(gst_caps_from_string(src_template_caps().c_str()));
  ef::gst::CapsPtr pad(gst_caps_from_string(src_pad_caps().c_str()));
  fail_unless(sink && src && pad);
  for (GstVideoFormat f : raw_formats()) {
    const char *name = gst_video_format_to_string(f);
    for (FrameMemory m : frame_memories()) {
      bool read = false, made = false, passed = false;
      for (const BackendTable *t : backend_tables()) {
        for (const Production &row : t->rows) {
          read = read || ((row.in & memory_bit(m)) && listed(row.inputs, f));
          made = made || (row.kind == OutputKind::Image && (row.out & memory_bit(m)) &&
                          listed(row.outputs, f));
          // attach-tensor: frames of which a tensor is made go out as they came.
          passed = passed || (row.kind == OutputKind::Tensor && (row.in & memory_bit(m)) &&
                              listed(row.inputs, f));
        }
      }
      const char *feature = m == FrameMemory::Gl       ? "memory:GLMemory"
                            : m == FrameMemory::DmaBuf ? "memory:DMABuf"
                            : m == FrameMemory::Cuda   ? "memory:CUDAMemory"
                                                       : "memory:SystemMemory";
      // dma-bufs: a sink takes 1.22's plain form (besides DMA_DRM, 1.24+),
      // a source makes DMA_DRM only there, which names no format.
      fail_unless(offers(sink.get(), feature, name) == read, "%s %s in", name, feature);
      if (m != FrameMemory::DmaBuf || !GST_CHECK_VERSION(1, 24, 0)) {
        fail_unless(offers(src.get(), feature, name) == made, "%s %s out", name, feature);
        fail_unless(offers(pad.get(), feature, name) == (made || passed), "%s %s out of the pad",
                    name, feature);
      }
    }
  }
  // The tensors are in both.
  for (GstCaps *c : {src.get(), pad.get()})
    fail_unless(gst_caps_can_intersect(c, caps("other/tensors, types=uint8").get()));
}
GST_END_TEST;

// transform_caps asks the tables: a format only the CPU reads has no GL
// texture out, and a GL texture out comes only from what GL reads.
GST_START_TEST(test_transform_follows_the_tables) {
  auto nv12 = caps("video/x-raw, format=NV12, width=64, height=48");
  ef::gst::CapsPtr from_nv12(retarget_caps(GST_PAD_SINK, nv12.get(), nullptr));
  fail_unless(offers(from_nv12.get(), "memory:SystemMemory", "RGBP"));
  fail_unless(offers(from_nv12.get(), "memory:SystemMemory", "RGB"));
  fail_if(offers(from_nv12.get(), "memory:SystemMemory", "NV12"));
#ifdef EF_HAVE_GSTGL
  fail_unless(offers(from_nv12.get(), "memory:GLMemory", "RGBA"));
  fail_if(offers(from_nv12.get(), "memory:GLMemory", "RGB"));
#endif
  auto y444 = caps("video/x-raw, format=Y444, width=64, height=48");
  ef::gst::CapsPtr from_y444(retarget_caps(GST_PAD_SINK, y444.get(), nullptr));
  fail_unless(offers(from_y444.get(), "memory:SystemMemory", "RGB"));
  fail_if(offers(from_y444.get(), "memory:GLMemory", "RGBA"));

#ifdef EF_HAVE_GSTGL
  // Tensors in plain memory, then as GL buffers, of what GL reads; of what
  // only the CPU reads, in plain memory alone.
  auto plain_tensor = caps("other/tensors, types=float32");
  auto gl_tensor = caps("other/tensors(memory:GLBuffer), types=float32");
  fail_unless(gst_caps_can_intersect(from_nv12.get(), plain_tensor.get()));
  fail_unless(gst_caps_can_intersect(from_nv12.get(), gl_tensor.get()));
  fail_unless(gst_caps_can_intersect(from_y444.get(), plain_tensor.get()));
  fail_if(gst_caps_can_intersect(from_y444.get(), gl_tensor.get()));
  auto gl_tensor_out = caps("other/tensors(memory:GLBuffer), types=int8, dimensions=3:8:8:1");
  ef::gst::CapsPtr into_gl_tensor(retarget_caps(GST_PAD_SRC, gl_tensor_out.get(), nullptr));
  fail_unless(offers(into_gl_tensor.get(), "memory:SystemMemory", "NV12"));
  fail_if(offers(into_gl_tensor.get(), "memory:SystemMemory", "Y444"));
  ef::gst::CapsPtr templ(gst_caps_from_string(src_template_caps().c_str()));
  fail_unless(gst_caps_can_intersect(templ.get(), gl_tensor.get()));
  auto texture = caps("video/x-raw(memory:GLMemory), format=RGBA, width=64, height=48");
  ef::gst::CapsPtr into_texture(retarget_caps(GST_PAD_SRC, texture.get(), nullptr));
  fail_unless(offers(into_texture.get(), "memory:SystemMemory", "NV12"));
  fail_if(offers(into_texture.get(), "memory:SystemMemory", "Y444"));
#endif
  auto rgb = caps("video/x-raw, format=RGB, width=64, height=48");
  ef::gst::CapsPtr into_rgb(retarget_caps(GST_PAD_SRC, rgb.get(), nullptr));
  fail_unless(offers(into_rgb.get(), "memory:SystemMemory", "Y444"));
  fail_unless(offers(into_rgb.get(), "memory:GLMemory", "NV12"));
#ifdef EF_HAVE_CUDA
  // CUDA memory: 4:2:0 in, plain memory out (images and tensors), and
  // nothing else either way.
  fail_unless(offers(into_rgb.get(), "memory:CUDAMemory", "NV12"));
  fail_if(offers(into_rgb.get(), "memory:CUDAMemory", "Y444"));
  auto cuda_nv12 = caps("video/x-raw(memory:CUDAMemory), format=NV12, width=64, height=48");
  ef::gst::CapsPtr from_cuda(retarget_caps(GST_PAD_SINK, cuda_nv12.get(), nullptr));
  fail_unless(offers(from_cuda.get(), "memory:SystemMemory", "RGB"));
  fail_unless(offers(from_cuda.get(), "memory:SystemMemory", "RGBP"));
  fail_if(offers(from_cuda.get(), "memory:SystemMemory", "NV12"));
  fail_unless(offers(from_cuda.get(), "memory:GLMemory", "RGBA"));
  fail_if(offers(from_cuda.get(), "memory:GLMemory", "RGB"));
  fail_if(offers(from_cuda.get(), "memory:GLMemory", "RGBP"));
  // Tensors into plain memory, not into GL buffers.
  fail_unless(gst_caps_can_intersect(from_cuda.get(), caps("other/tensors").get()));
  fail_if(gst_caps_can_intersect(from_cuda.get(), caps("other/tensors(memory:GLBuffer)").get()));
#else
  fail_if(offers(into_rgb.get(), "memory:CUDAMemory", "NV12"));
#endif
}
GST_END_TEST;

GST_START_TEST(test_conversions_go_to_their_backends) {
  GstVideoInfo nv12, y444, rgb, rgba;
  gst_video_info_set_format(&nv12, GST_VIDEO_FORMAT_NV12, 64, 48);
  gst_video_info_set_format(&y444, GST_VIDEO_FORMAT_Y444, 64, 48);
  gst_video_info_set_format(&rgb, GST_VIDEO_FORMAT_RGB, 32, 32);
  gst_video_info_set_format(&rgba, GST_VIDEO_FORMAT_RGBA, 32, 32);
  const auto sys = FrameMemory::System, gl = FrameMemory::Gl;
  const Conversion plain = conversion_of(nv12, sys, OutputSpec(rgb), sys);
  const Conversion cpu_only = conversion_of(y444, gl, OutputSpec(rgb), sys);
  const Conversion texture = conversion_of(nv12, sys, OutputSpec(rgba), gl);
  fail_unless(makes(cpu_table(), plain));
  fail_unless(makes(cpu_table(), cpu_only));
  fail_if(makes(cpu_table(), texture));
#ifdef EF_HAVE_GSTGL
  fail_unless(backends_making(plain) == "cpu, gl");
  fail_unless(backends_making(cpu_only) == "cpu");
  fail_unless(backends_making(texture) == "gl");
#endif
  const Conversion decoded = conversion_of(nv12, FrameMemory::Cuda, OutputSpec(rgb), sys);
  fail_if(makes(cpu_table(), decoded));
  fail_unless(describe(decoded) == "NV12 in CUDA memory to RGB frames in system memory");
#ifdef EF_HAVE_CUDA
  fail_unless(backends_making(decoded) == "cuda", "%s", backends_making(decoded).c_str());
#endif
  const std::string said = describe(texture);
  fail_unless(said == "NV12 in system memory to RGBA frames in GL memory", "%s", said.c_str());
  // Tensors: both backends in plain memory, GL alone as GL buffers, and
  // GL's only where it computes.
  TensorSpec spec;
  spec.width = spec.height = 32;
  const Conversion tensor = conversion_of(nv12, sys, OutputSpec(spec), sys);
  const Conversion resident = conversion_of(nv12, sys, OutputSpec(spec), FrameMemory::GlBuffer);
  fail_unless(makes(cpu_table(), tensor));
  fail_if(makes(cpu_table(), resident));
#ifdef EF_HAVE_GSTGL
  fail_unless(backends_making(tensor) == "cpu, gl");
  fail_unless(backends_making(resident) == "gl");
  fail_if(makes(gl_table(), tensor, false), "a GL tensor without compute shaders");
  fail_unless(describe(resident) == "NV12 in system memory to float32 tensors in GL buffer memory");
#endif
}
GST_END_TEST;

static Suite *tables_suite() {
  Suite *s = suite_create("backend_tables");
  TCase *tc = tcase_create("tables");
  tcase_add_test(tc, test_cpu_table_is_the_converter);
#ifdef EF_HAVE_GSTGL
  tcase_add_test(tc, test_gl_table_is_the_shader);
#endif
#ifdef EF_HAVE_GSTGL
  tcase_add_test(tc, test_cuda_table_is_the_pass);
#endif
  tcase_add_test(tc, test_templates_are_the_union);
  tcase_add_test(tc, test_transform_follows_the_tables);
  tcase_add_test(tc, test_conversions_go_to_their_backends);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(tables);
