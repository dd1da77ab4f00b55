// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's tensors on the GL backend (the compute pass writing a buffer
// object), against references computed here as numpy would:
// - every element type x layout x channel order, with and without
//   letterbox, on a zone plate with colour steps at odd sizes whose rows
//   are no multiple of 16 bytes: a float tensor within one level (0-255
//   units) of the GL backend's own 8-bit output (an RGB or GRAY8 frame of
//   the same pass) normalised; its 8-bit levels (a uint8 tensor with the
//   defaults) within one level of that frame, every int8 and uint8 tensor
//   the formula exactly on those levels, and every float tensor the
//   value those levels are the rounding of (within half a level, and the
//   type's own rounding); and GL against the CPU backend no further apart
//   than their RGB frames are; float tensors against the exact values
//   (tensor_precision.hpp) and the CPU's;
// - the hardware paths on llvmpipe (EF_GL_RENDERER_KIND=hardware): pack
//   memory outputs copied by the GPU, a pipelined read-back, a GL buffer
//   that stays on the GPU (memory:GLBuffer) with a Pbo identity and the
//   same bytes when mapped;
// - auto deciding as for images, and bad caps for GL named on the bus.
// Contexts without compute shaders skip with the reason.
#include <gst/ef/gstef.h>
#include <gst/gl/gl.h>
#include <gst/gl/gstglfuncs.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "gl_test_context.hpp"
#include "check_gl_main.hpp"
#include "frames.hpp"
#include "harness.hpp"
#include "gap_frames.hpp"
#include "short_fds.hpp"
#include "tensor_precision.hpp"
#include "tensors.hpp"

#ifndef GL_BUFFER_IMMUTABLE_STORAGE
#define GL_BUFFER_IMMUTABLE_STORAGE 0x821F
#endif
#ifndef GL_DYNAMIC_COPY
#define GL_DYNAMIC_COPY 0x88EA
#endif

using namespace ef::test;

namespace {

// The GL backend's tensors; gl-shader=compute for its 8-bit frames too, so
// that both come out of the same stage.
constexpr const char *kGl = "efconvert backend=gl gl-shader=compute ";

// The case's 8-bit values in an RGB or GRAY8 frame's bytes (tightly packed
// rows of `c.w` pixels): the value of tensor channel k at (x, y).
struct Levels {
  std::vector<guint8> bytes;
  guint channels;
  guint w;
  guint at(const TensorCase &c, guint x, guint y, guint k) const {
    const guint colour = c.gray ? 0 : c.bgr ? 2 - k : k;
    return bytes[(gsize(y) * w + x) * channels + colour];
  }
};

// The frame of `c`'s size in RGB or GRAY8 from `element`, its rows packed.
Levels image_levels(const std::string &element, const TensorCase &c, GstBuffer *frame) {
  const GstVideoInfo image =
      video_info(c.gray ? GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_RGB, c.w, c.h);
  GstBuffer *out =
      convert_one(element + letterbox_props(c), caps_text(c.in), caps_text(image), frame);
  GstVideoFrame f;
  GstVideoInfo info = image;
  fail_unless(gst_video_frame_map(&f, &info, out, GST_MAP_READ));
  Levels l{{}, c.gray ? 1u : 3u, c.w};
  const gsize row = gsize(c.w) * l.channels;
  for (guint y = 0; y < c.h; ++y) {
    const auto *p = static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&f, 0)) +
                    gsize(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&f, 0);
    l.bytes.insert(l.bytes.end(), p, p + row);
  }
  gst_video_frame_unmap(&f);
  gst_buffer_unref(out);
  return l;
}

// The GL backend's own 8-bit levels: a uint8 tensor with the defaults is
// the levels themselves (NHWC RGB, or luma).
Levels tensor_levels(const TensorCase &c, GstBuffer *frame) {
  TensorCase levels = c;
  levels.type = "uint8";
  levels.nchw = false;
  levels.bgr = false;
  GstBuffer *out =
      convert_one(kGl + letterbox_props(levels), caps_text(c.in), tensor_caps(levels), frame);
  Levels l{buffer_bytes(out), c.gray ? 1u : 3u, c.w};
  gst_buffer_unref(out);
  return l;
}

// Mean squared difference in levels (0-255 units) of two tensors of case
// `c` with normalisation `n`, and its PSNR.
double psnr_levels(const TensorCase &c, const TensorNormCase &n, const std::vector<guint8> &a,
                   const std::vector<guint8> &b) {
  const guint channels = c.gray ? 1 : 3;
  const double unit = is_quantised(c.type) ? n.quant_scale : 1.0;
  double se = 0;
  for (guint y = 0; y < c.h; ++y)
    for (guint x = 0; x < c.w; ++x)
      for (guint k = 0; k < channels; ++k) {
        const gsize i = tensor_index(c, x, y, k);
        const double d =
            (tensor_element(a.data(), c.type, i) - tensor_element(b.data(), c.type, i)) * unit *
            n.stddev[k];
        se += d * d;
      }
  const double n_values = double(c.w) * c.h * channels;
  return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * n_values / se);
}

double psnr_bytes(const std::vector<guint8> &a, const std::vector<guint8> &b) {
  double se = 0;
  for (gsize i = 0; i < a.size(); ++i)
    se += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
  return se == 0 ? 99.0 : 10 * std::log10(255.0 * 255.0 * double(a.size()) / se);
}

// Totals over a sweep: levels of the GL tensor that differ from the GL
// frame's (a rounding tie taken the other way by the store), of all.
struct Tally {
  gsize differing = 0, values = 0;
};

// One case on GL: its levels against the GL frame, every normalisation
// against the formula on its levels, and against the CPU backend.
void check_case(const TensorCase &c, GstBuffer *frame, Tally &tally) {
  const std::string in_caps = caps_text(c.in);
  const Levels image = image_levels(kGl, c, frame);
  const Levels levels = tensor_levels(c, frame);
  const Levels cpu_image = image_levels("efconvert backend=cpu ", c, frame);
  const guint channels = c.gray ? 1 : 3;
  fail_unless_equals_uint64(levels.bytes.size(), image.bytes.size());
  for (gsize i = 0; i < image.bytes.size(); ++i) {
    const int d = int(levels.bytes[i]) - int(image.bytes[i]);
    fail_unless(std::abs(d) <= 1, "%s: level %d against the GL frame's %d at byte %zu",
                tensor_caps(c).c_str(), levels.bytes[i], image.bytes[i], i);
    tally.differing += d != 0;
  }
  tally.values += image.bytes.size();
  const double frames_apart = psnr_bytes(image.bytes, cpu_image.bytes);
  for (const TensorNormCase &n : norms_for(c.type, c.gray)) {
    const std::string props = tensor_props(c, n);
    const std::string what = in_caps + " -> " + tensor_caps(c) + " (" + props + ")";
    GstBuffer *out = convert_one(kGl + props, in_caps, tensor_caps(c), frame);
    fail_unless_equals_int(gst_buffer_n_memory(out), 1);
    fail_unless(gst_buffer_get_ef_transform_meta(out), "%s: no transform meta", what.c_str());
    const std::vector<guint8> gl = buffer_bytes(out);
    gst_buffer_unref(out);
    fail_unless_equals_uint64(gl.size(), gsize(c.w) * c.h * channels * element_bytes(c.type));
    // A float's own rounding, in levels, on top of the one level.
    const double ulp = c.type == "float32" ? 0x1p-24 : 0x1p-11;
    double worst = 0;
    for (guint y = 0; y < c.h; ++y)
      for (guint x = 0; x < c.w; ++x)
        for (guint k = 0; k < channels; ++k) {
          const double got = tensor_element(gl.data(), c.type, tensor_index(c, x, y, k));
          const double v8 = image.at(c, x, y, k), own = levels.at(c, x, y, k);
          const double normalised = (own - n.mean[k]) / n.stddev[k];
          if (is_quantised(c.type)) {
            const double want = quantise(normalised, n, c.type);
            fail_unless(got == want, "%s: (%u, %u) channel %u: %g, the formula on %g gives %g",
                        what.c_str(), x, y, k, got, own, want);
          } else {
            // Unrounded: the value its level is the rounding of (half a
            // level, and a float's own rounding on top).
            const double rounding = std::max(std::abs(normalised) * ulp, 0x1p-24);
            const double level = got * n.stddev[k] + n.mean[k];
            fail_unless(std::abs(level - own) <= 0.5 + 1e-3 + rounding * n.stddev[k],
                        "%s: (%u, %u) channel %u: %.9g (level %.4f), its own level is %g",
                        what.c_str(), x, y, k, got, level, own);
            worst = std::max(worst,
                             std::abs(got * n.stddev[k] + n.mean[k] - v8) - rounding * n.stddev[k]);
          }
        }
    fail_unless(worst <= 1.0, "%s: %g levels from the GL frame normalised", what.c_str(), worst);
    // GL against the CPU: no further apart than their 8-bit frames.
    GstBuffer *cpu_out =
        convert_one("efconvert backend=cpu " + props, in_caps, tensor_caps(c), frame);
    const std::vector<guint8> cpu = buffer_bytes(cpu_out);
    gst_buffer_unref(cpu_out);
    const double apart = psnr_levels(c, n, gl, cpu);
    const double allowed = std::min(frames_apart - 1.0, 30.0);
    fail_unless(apart >= allowed, "%s: GL and CPU tensors %.1f dB apart, their frames %.1f dB",
                what.c_str(), apart, frames_apart);
  }
}

void sweep(const GstVideoInfo &in, guint w, guint h, Tally &tally) {
  GstBuffer *frame = zone_plate_frame(in);
  for (bool letterbox : {true, false})
    for (const char *type : kTensorTypes)
      for (const TensorCase &c : shapes_of(in, w, h, letterbox, type))
        check_case(c, frame, tally);
  gst_buffer_unref(frame);
}

// A rounding tie the tensor's store and the frame's take apart is rare:
// below one value in a thousand.
void check_tally(const Tally &t) {
  fail_unless(t.differing * 1000 <= t.values, "%zu of %zu levels differ from the GL frames'",
              t.differing, t.values);
  std::printf("%zu of %zu levels differ from the GL frames'\n", t.differing, t.values);
}

}  // namespace

// NV12 97x61 into 45x37 (rows of 135 bytes; letterbox borders above and
// below) and 64x64 (on the sides).
GST_START_TEST(test_nv12_odd_sizes) {
  const HarnessGlContext gl;
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 97, 61);
  Tally tally;
  sweep(in, 45, 37, tally);
  sweep(in, 64, 64, tally);
  check_tally(tally);
}
GST_END_TEST;

// RGBA 33x17 (rows of 132 bytes) into 31x9; I420 64x48 into 29x41; a
// strong reduction, 1280x720 NV12 into 17x13.
GST_START_TEST(test_rgba_i420_and_reductions) {
  const HarnessGlContext gl;
  Tally tally;
  sweep(video_info(GST_VIDEO_FORMAT_RGBA, 33, 17), 31, 9, tally);
  sweep(video_info(GST_VIDEO_FORMAT_I420, 64, 48), 29, 41, tally);
  sweep(video_info(GST_VIDEO_FORMAT_NV12, 1280, 720), 17, 13, tally);
  check_tally(tally);
}
GST_END_TEST;

// Float tensors carry the average's full precision on GL as on the CPU:
// text and noise in 8 bits at 2:1 and odd reductions and a 10-bit
// gradient, float32 and float16, against the exact values
// (tensor_precision.hpp), the gradient's between the 8-bit levels; and
// the two backends' tensors of each case within twice those bounds of
// each other.
GST_START_TEST(test_float_precision) {
  const HarnessGlContext gl;
  const auto on_gl = check_precision(kGl);
  const auto on_cpu = check_precision("efconvert backend=cpu");
  const auto cases = precision_cases();
  Precision widest;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Precision apart = levels_apart(cases[i], on_gl[i], on_cpu[i]);
    widest.mean = std::max(widest.mean, apart.mean);
    widest.worst = std::max(widest.worst, apart.worst);
    fail_unless(apart.mean <= kApartMeanBound && apart.worst <= kApartWorstBound,
                "%s: GL and CPU %.4f levels apart on average, %.4f at worst", cases[i].what.c_str(),
                apart.mean, apart.worst);
  }
  std::printf("GL and CPU float tensors: %.4f levels apart on average, %.4f at worst\n",
              widest.mean, widest.worst);
}
GST_END_TEST;

namespace {

// Sets EF_GL_RENDERER_KIND for its lifetime: llvmpipe taken for hardware.
struct ForcedKind {
  explicit ForcedKind(const char *kind) { g_setenv("EF_GL_RENDERER_KIND", kind, TRUE); }
  ~ForcedKind() { g_unsetenv("EF_GL_RENDERER_KIND"); }
};

const std::string kNv12 = "video/x-raw, format=NV12, width=97, height=61, framerate=30/1";

}  // namespace

namespace {

// attach-tensor on GL: a tensor of our own fd memory (through a pack buffer
// of the ring), complete on the frame that goes out, `want`'s bytes.
void check_attached(const std::string &props, const char *caps, GstBuffer *frame,
                    const std::vector<guint8> &want) {
  GstHarness *h =
      gst_harness_new_parse((props + " attach-tensor=\"" + std::string(caps) + "\"").c_str());
  gst_harness_set_caps_str(h, kNv12.c_str(), kNv12.c_str());
  fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull(h);
  GstEfTensorMeta *meta = gst_buffer_get_ef_tensor_meta(out);
  fail_unless(meta && meta->tensor);
  fail_unless(buffer_bytes(meta->tensor) == want, "%s: the attached tensor differs", caps);
  gst_buffer_unref(out);
  gst_harness_teardown(h);
}

}  // namespace

// On hardware GL (forced here) a plain tensor output is GL pack memory the
// GPU copies the pass's buffer into (or, with EF_GL_TENSOR_WRITE=direct,
// that the pass writes itself where the layout allows), read back
// pipelined at every depth; an attached tensor (our own fd memory) goes
// through a pack buffer of the ring. The same bytes as llvmpipe's own path.
GST_START_TEST(test_hardware_routes) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 97, 61);
  GstBuffer *frame = zone_plate_frame(in);
  for (const char *caps : {"other/tensors, types=float32, dimensions=45:37:3:1",
                           "other/tensors, types=uint8, dimensions=45:37:3:1",
                           "other/tensors, types=int8, dimensions=3:45:37:1",
                           "other/tensors, types=float16, dimensions=1:45:37:1"}) {
    const std::string props = std::string(kGl) + "mean=<100> std=<50> quant-scale=0.02";
    GstBuffer *soft = convert_one(props, kNv12, caps, frame);
    const std::vector<guint8> want = buffer_bytes(soft);
    gst_buffer_unref(soft);
    check_attached(props, caps, frame, want);
    ForcedKind hardware("hardware");
    for (auto [write, depth] : {std::pair{"copy", 0u}, std::pair{"copy", 1u}, std::pair{"copy", 3u},
                                std::pair{"direct", 0u}, std::pair{"direct", 1u}}) {
      g_setenv("EF_GL_TENSOR_WRITE", write, TRUE);
      GstHarness *h = gst_harness_new_parse(
          (props + " name=conv readback-depth=" + std::to_string(depth)).c_str());
      gst_harness_set_caps_str(h, kNv12.c_str(), caps);
      gst_harness_play(h);
      for (guint i = 0; i < depth + 2; ++i)
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
      gst_harness_push_event(h, gst_event_new_eos());
      for (guint i = 0; i < depth + 2; ++i) {
        GstBuffer *out = gst_harness_pull(h);
        fail_unless(out, "%s depth %u: frame %u missing", caps, depth, i);
        GstMemory *mem = gst_buffer_peek_memory(out, 0);
        fail_unless(gst_memory_is_type(mem, "EfGlPackMemory"), "%s: %s memory, not pack memory",
                    caps, mem->allocator->mem_type);
        fail_unless(buffer_bytes(out) == want,
                    "%s (%s) depth %u frame %u differs from llvmpipe's path", caps, write, depth,
                    i);
        gst_buffer_unref(out);
      }
      GstElement *conv = harness_element(h, "conv");
      fail_unless_equals_uint64(stat(conv, "frames"), depth + 2);
      fail_unless_equals_uint64(stat(conv, "readbacks"), depth + 2);
      fail_unless(string_property(conv, "backend-in-use") == "gl");
      fail_unless(string_property(conv, "gl-shader-in-use") == "compute");
      gst_harness_teardown(h);
      g_unsetenv("EF_GL_TENSOR_WRITE");
    }
    check_attached(props, caps, frame, want);
  }
  gst_buffer_unref(frame);
}
GST_END_TEST;

namespace {

// The GL buffer's bytes read through GL on its context (not its CPU map).
struct GlRead {
  guint id;
  gsize size;
  std::vector<guint8> bytes;
  GLint immutable = -1, usage = 0;  // its storage, where GL can say
};

void read_gl_buffer(GstGLContext *context, gpointer data) {
  auto *r = static_cast<GlRead *>(data);
  const GstGLFuncs *gl = context->gl_vtable;
  r->bytes.assign(r->size, 0);
  gl->BindBuffer(GL_ARRAY_BUFFER, r->id);
  gl->GetBufferParameteriv(GL_ARRAY_BUFFER, GL_BUFFER_USAGE, &r->usage);
  if (gl->BufferStorage)  // GL 4.4: storage may be immutable
    gl->GetBufferParameteriv(GL_ARRAY_BUFFER, GL_BUFFER_IMMUTABLE_STORAGE, &r->immutable);
  if (gl->GetBufferSubData) {
    gl->GetBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(r->size), r->bytes.data());
  } else if (const void *p =
                 gl->MapBufferRange(GL_ARRAY_BUFFER, 0, GLsizeiptr(r->size), GL_MAP_READ_BIT)) {
    std::memcpy(r->bytes.data(), p, r->size);
    gl->UnmapBuffer(GL_ARRAY_BUFFER);
  }
  gl->BindBuffer(GL_ARRAY_BUFFER, 0);
}

}  // namespace

// Downstream that takes memory:GLBuffer gets the tensor as a GL buffer
// that stays on the GPU: GstGLBuffer memory whose identity is the Pbo of
// its name, the same bytes as the plain tensor, read through GL and
// through a CPU map (and a CPU write reaches GL); its storage not pinned
// in system memory; auto takes GL for it; nothing is read back. A
// padded layout (NCHW uint8 of an odd pixel count) is copied in by the GPU.
GST_START_TEST(test_gl_buffer_output) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 97, 61);
  GstBuffer *frame = zone_plate_frame(in);
  ForcedKind hardware("hardware");
  for (const char *dims : {"3:45:37:1", "45:37:3:1", "1:45:37:1"})
    for (const char *type : kTensorTypes)
      for (const char *backend : {"gl", "auto"}) {
        const std::string plain =
            std::string("other/tensors, types=") + type + ", dimensions=" + dims;
        const std::string resident =
            std::string("other/tensors(memory:GLBuffer), types=") + type + ", dimensions=" + dims;
        const std::string props =
            std::string("mean=<120> std=<40> quant-scale=0.03 channel-order=bgr ");
        GstBuffer *want_buffer = convert_one(kGl + props, kNv12, plain, frame);
        const std::vector<guint8> want = buffer_bytes(want_buffer);
        gst_buffer_unref(want_buffer);
        GstHarness *h = gst_harness_new_parse(
            ("efconvert name=conv backend=" + std::string(backend) + " " + props).c_str());
        gst_harness_set_caps_str(h, kNv12.c_str(), resident.c_str());
        fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
        GstBuffer *out = gst_harness_pull(h);
        GstMemory *mem = gst_buffer_peek_memory(out, 0);
        fail_unless(gst_is_gl_buffer(mem), "%s: %s memory", resident.c_str(),
                    mem->allocator->mem_type);
        const guint id = reinterpret_cast<GstGLBuffer *>(mem)->id;
        GstEfIdentityMeta *identity = gst_buffer_get_ef_identity_meta(out);
        fail_unless(identity && identity->n_identities == 1, "%s: no identity", resident.c_str());
        fail_unless_equals_int(identity->identities[0].kind, GST_EF_IDENTITY_KIND_PBO);
        fail_unless_equals_uint64(identity->identities[0].id, (guint64(7) << 56) ^ id);
        GlRead read{id, want.size(), {}};
        gst_gl_context_thread_add(GST_GL_BASE_MEMORY_CAST(mem)->context, read_gl_buffer, &read);
        fail_unless(read.bytes == want, "%s (backend=%s): the GL buffer read through GL differs",
                    resident.c_str(), backend);
        // Storage GL may keep in GPU memory: not GstGL's immutable storage
        // mapped for good, which NVIDIA keeps in system memory.
        fail_unless(read.immutable != GL_TRUE, "%s: immutable (persistently mapped) storage",
                    resident.c_str());
        fail_unless_equals_int(read.usage, GL_DYNAMIC_COPY);
        fail_unless(buffer_bytes(out) == want, "%s: the GL buffer mapped differs",
                    resident.c_str());
        // What the CPU writes reaches GL at its next map: on a copy (the
        // output's memory is shared with its GstTensorMeta on 1.26+, so not
        // writable), made by the same allocator on the GPU.
        GstMemory *copy = gst_memory_copy(mem, 0, -1);
        fail_unless(copy && gst_is_gl_buffer(copy) && copy->allocator == mem->allocator);
        GstMapInfo map;
        fail_unless(gst_memory_map(copy, &map, GST_MAP_WRITE));
        std::memset(map.data, 0x5a, map.size);
        gst_memory_unmap(copy, &map);
        fail_unless(gst_memory_map(copy, &map, GstMapFlags(GST_MAP_READ | GST_MAP_GL)));
        gst_memory_unmap(copy, &map);
        GlRead written{reinterpret_cast<GstGLBuffer *>(copy)->id, want.size(), {}};
        gst_gl_context_thread_add(GST_GL_BASE_MEMORY_CAST(copy)->context, read_gl_buffer, &written);
        fail_unless(written.bytes == std::vector<guint8>(want.size(), 0x5a),
                    "%s: a CPU write did not reach the GL buffer", resident.c_str());
        gst_memory_unref(copy);
        GstElement *conv = harness_element(h, "conv");
        fail_unless_equals_uint64(stat(conv, "readbacks"), 0);
        fail_unless(string_property(conv, "backend-in-use") == "gl", "%s: backend=%s ran %s",
                    resident.c_str(), backend, string_property(conv, "backend-in-use").c_str());
        gst_buffer_unref(out);
        gst_harness_teardown(h);
      }
  gst_buffer_unref(frame);
}
GST_END_TEST;

// auto decides for tensors as for images: the CPU where GL is a software
// rasterizer, a timed trial on hardware for plain memory (whose frames are
// the same tensor whichever runs), GL for a GL buffer; with the fragment
// stage forced GL makes no tensors and says why.
GST_START_TEST(test_auto_decides) {
  const GstVideoInfo in = video_info(GST_VIDEO_FORMAT_NV12, 97, 61);
  // A memfd: the GPU imports it, so only timing can tell.
  GstBuffer *frame = zone_plate_memfd(in);
  const char *caps = "other/tensors, types=float16, dimensions=45:37:3:1";
  struct Expect {
    const char *kind, *props, *backend, *says;
  };
  for (const Expect &e : {Expect{"software", "", "cpu", "in software"},
                          Expect{"hardware", "gl-shader=fragment", "cpu", "compute shader"},
                          Expect{"hardware", "", "", "trial"}}) {
    ForcedKind kind(e.kind);
    GstHarness *h = gst_harness_new_parse(
        (std::string("efconvert name=conv mean=<128> std=<64> ") + e.props).c_str());
    gst_harness_set_caps_str(h, kNv12.c_str(), caps);
    GstElement *conv = harness_element(h, "conv");
    for (int i = 0; i < 20; ++i) {
      fail_unless_equals_int(gst_harness_push(h, gst_buffer_ref(frame)), GST_FLOW_OK);
      gst_buffer_unref(gst_harness_pull(h));
    }
    const std::string in_use = string_property(conv, "backend-in-use");
    const std::string reason = string_property(conv, "backend-reason");
    if (*e.backend)
      fail_unless(in_use == e.backend, "%s %s: %s (%s)", e.kind, e.props, in_use.c_str(),
                  reason.c_str());
    else
      fail_unless(reason.find("timed") != std::string::npos, "%s: %s", e.kind, reason.c_str());
    if (std::string(e.says) != "trial")
      fail_unless(reason.find(e.says) != std::string::npos, "%s %s: %s", e.kind, e.props,
                  reason.c_str());
    gst_harness_teardown(h);
  }
  gst_buffer_unref(frame);
}
GST_END_TEST;

// Bad caps for GL: an error on the bus naming what is wrong.
GST_START_TEST(test_bad_caps_named) {
  struct Bad {
    const char *props, *out, *says;
  };
  for (const Bad &b : {
           Bad{"backend=gl gl-shader=fragment",
               "other/tensors, types=float32, dimensions=3:32:32:1",
               "backend=gl cannot convert NV12 in system memory to float32 tensors in system "
               "memory: gl-shader=fragment"},
           Bad{"backend=cpu", "other/tensors(memory:GLBuffer), types=int8, dimensions=3:32:32:1",
               "backend=cpu cannot convert NV12 in system memory to int8 tensors in GL buffer "
               "memory"},
           Bad{"backend=gl", "other/tensors(memory:GLBuffer), types=int8, dimensions=4:32:32:1",
               "neither NHWC (C:W:H:1) nor NCHW"},
           Bad{"backend=gl", "other/tensors, types=float32, dimensions=3:32:32:2", "a batch of 1"},
       }) {
    GstHarness *h = gst_harness_new_parse((std::string("efconvert ") + b.props).c_str());
    expect_caps_refused(h, "video/x-raw, format=NV12, width=64, height=48", b.out, b.says);
    gst_harness_teardown(h);
  }
}
GST_END_TEST;

// A memfd shorter than its memory claims is refused by name before the
// tensor pass reads it (it was a SIGBUS); later tensors are a fresh
// element's.
GST_START_TEST(test_short_fds_refused) {
  for (const char *type : {"uint8", "float32"}) {
    const std::string caps = std::string("other/tensors,format=static,num_tensors=1,types=") +
                             type + ",dimensions=3:64:48:1";
    expect_convert_short_fds_refused("backend=gl", caps.c_str());
  }
}
GST_END_TEST;

// GAP buffers go on as gap events, tensors or tensors attached to frames.
GST_START_TEST(test_gap_buffers) {
  const std::string tensor =
      "other/tensors,format=static,num_tensors=1,types=float32,dimensions=3:64:48:1";
  expect_convert_gaps_forwarded("backend=gl", tensor.c_str());
  expect_convert_gaps_forwarded("backend=gl attach-tensor=\"" + tensor + "\"", nullptr);
}
GST_END_TEST;

static Suite *tensor_gl_suite() {
  Suite *s = suite_create("efconvert_tensor_gl");
  TCase *tc = tcase_create("tensor_gl");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_nv12_odd_sizes);
  tcase_add_test(tc, test_rgba_i420_and_reductions);
  tcase_add_test(tc, test_float_precision);
  tcase_add_test(tc, test_hardware_routes);
  tcase_add_test(tc, test_gl_buffer_output);
  tcase_add_test(tc, test_auto_decides);
  tcase_add_test(tc, test_bad_caps_named);
  tcase_add_test(tc, test_short_fds_refused);
  tcase_add_test(tc, test_gap_buffers);
  suite_add_tcase(s, tc);
  return s;
}

int main(int argc, char **argv) {
  return run_gl_suite(argc, argv, tensor_gl_suite, Needs::GlCompute);
}
