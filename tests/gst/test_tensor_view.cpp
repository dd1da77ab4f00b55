// SPDX-License-Identifier: LGPL-2.1-or-later
// GstEfTensorView: efconvert's tensors (system memory, made in a pipeline)
// as DLPack tensors: shape, strides, dtype and data for every type and
// layout, the deleter releasing the buffer once, bad input as GErrors. The
// CUDA path through a stand-in for GstCudaMemory (its memory type, head and
// context property; its stream API exported from this program), since CI
// has no GPU: the real memory is checked on a GPU (test_tensor_view_cuda in
// examples/cuda_tensor.c).
#include <dlpack/dlpack.h>
#include <gst/ef/gstef.h>
#include <gst/video/video.h>

#include <cstring>
#include <string>

#include "frames.hpp"
#include "tensors.hpp"

// Last: Check's `fail` macro would rename std::ios::fail in headers after it.
#include <gst/check/gstcheck.h>

using namespace ef::test;

namespace {

constexpr guint kW = 20, kH = 12;

struct Case {
  const char *type;
  bool nchw;
  uint8_t code, bits;
};
constexpr Case kCases[] = {
    {"uint8", false, kDLUInt, 8},     {"uint8", true, kDLUInt, 8},
    {"int8", false, kDLInt, 8},       {"int8", true, kDLInt, 8},
    {"float16", false, kDLFloat, 16}, {"float16", true, kDLFloat, 16},
    {"float32", false, kDLFloat, 32}, {"float32", true, kDLFloat, 32},
};

std::string caps_of(const Case &c) {
  return std::string("other/tensors,format=static,num_tensors=1,types=") + c.type +
         ",dimensions=(string)" + (c.nchw ? "20:12:3:1" : "3:20:12:1");
}

// efconvert's tensor of a 32x24 frame.
GstBuffer *efconvert_tensor(const std::string &caps) {
  GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGB, 32, 24);
  GstBuffer *frame = zone_plate_frame(in);
  GstBuffer *out = convert_one("efconvert backend=cpu", caps_text(in), caps, frame);
  gst_buffer_unref(frame);
  return out;
}

// The buffer's first memory can (not) be mapped for writing: a view's
// read mapping is still held where it cannot.
bool writable_map(GstBuffer *buffer) {
  GstMemory *mem = gst_buffer_peek_memory(buffer, 0);
  GstMapInfo map;
  if (!gst_memory_map(mem, &map, GST_MAP_WRITE))
    return false;
  gst_memory_unmap(mem, &map);
  return true;
}

void count_finalize(gpointer count, GstMiniObject *) {
  ++*static_cast<int *>(count);
}

GstEfTensorView *view_or_fail(GstBuffer *buffer, GstCaps *caps) {
  GError *error = nullptr;
  GstEfTensorView *view = gst_ef_tensor_view_new(buffer, caps, &error);
  fail_unless(view, "gst_ef_tensor_view_new: %s", error ? error->message : "no error");
  return view;
}

// The view's error for `buffer` and `caps` (a caps string, or null).
void expect_error(GstBuffer *buffer, const char *caps, int code, const char *says) {
  GstCaps *c = caps ? gst_caps_from_string(caps) : nullptr;
  GError *error = nullptr;
  GstEfTensorView *view = gst_ef_tensor_view_new(buffer, c, &error);
  fail_unless(!view, "%s: a view", caps ? caps : "(no caps)");
  fail_unless(error && error->domain == GST_EF_TENSOR_VIEW_ERROR, "%s: no view error",
              caps ? caps : "(no caps)");
  fail_unless_equals_int(error->code, code);
  fail_unless(std::strstr(error->message, says), "'%s' does not say '%s'", error->message, says);
  g_error_free(error);
  if (c)
    gst_caps_unref(c);
}

}  // namespace

// Every type and layout: the DLPack tensor is the buffer's bytes as the caps
// lay them out, and nothing else.
GST_START_TEST(test_shape_strides_dtype) {
  for (const Case &c : kCases) {
    const std::string caps_text = caps_of(c);
    GstBuffer *tensor = efconvert_tensor(caps_text);
    GstCaps *caps = gst_caps_from_string(caps_text.c_str());
    GstEfTensorView *view = view_or_fail(tensor, caps);
    DLManagedTensor *dl = gst_ef_tensor_view_to_dlpack(view);
    const DLTensor &t = dl->dl_tensor;
    fail_unless_equals_int(t.device.device_type, kDLCPU);
    fail_unless_equals_int(t.device.device_id, 0);
    fail_unless_equals_int(t.ndim, 4);
    const int64_t nhwc[] = {1, kH, kW, 3}, nchw[] = {1, 3, kH, kW};
    const int64_t *shape = c.nchw ? nchw : nhwc;
    const int64_t strides[] = {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
    for (int i = 0; i < 4; ++i) {
      fail_unless_equals_int64(t.shape[i], shape[i]);
      fail_unless_equals_int64(t.strides[i], strides[i]);
    }
    fail_unless_equals_int(t.dtype.code, c.code);
    fail_unless_equals_int(t.dtype.bits, c.bits);
    fail_unless_equals_int(t.dtype.lanes, 1);
    fail_unless_equals_uint64(t.byte_offset, 0);
    GstMapInfo map;
    fail_unless(gst_buffer_map(tensor, &map, GST_MAP_READ));
    fail_unless_equals_uint64(map.size, gsize(kW) * kH * 3 * c.bits / 8);
    // The same bytes where the map has them: no copy was made.
    fail_unless(t.data == map.data, "%s: data is not the buffer's", caps_text.c_str());
    gst_buffer_unmap(tensor, &map);
    // The GI getters say what the struct says.
    guint ndim = 0;
    fail_unless(gst_ef_tensor_view_get_shape(view, &ndim) == t.shape && ndim == 4);
    guint8 code = 0, bits = 0;
    gst_ef_tensor_view_get_dtype(view, &code, &bits);
    fail_unless(code == c.code && bits == c.bits);
    fail_unless_equals_uint64(gst_ef_tensor_view_get_data(view), guint64(uintptr_t(t.data)));
    fail_unless_equals_uint64(gst_ef_tensor_view_get_cuda_stream(view), 0);
    dl->deleter(dl);
    gst_ef_tensor_view_unref(view);
    gst_caps_unref(caps);
    gst_buffer_unref(tensor);
  }
}
GST_END_TEST;

// The view and each DLPack tensor hold the buffer mapped until the last of
// them is released, and release it once: the buffer's refcount, its mapping
// and its finalisation.
GST_START_TEST(test_deleter_releases_once) {
  const std::string caps_text = caps_of(kCases[6]);
  GstBuffer *tensor = efconvert_tensor(caps_text);
  GstCaps *caps = gst_caps_from_string(caps_text.c_str());
  int finalized = 0;
  gst_mini_object_weak_ref(GST_MINI_OBJECT(tensor), count_finalize, &finalized);
  const gint refs = GST_MINI_OBJECT_REFCOUNT_VALUE(tensor);
  // The mapping is seen through a writable map where the buffer allows
  // one (GStreamer 1.26+ may hand efconvert's output over not writable);
  // the references and the finalisation are counted everywhere.
  const bool seen = writable_map(tensor);
  GstEfTensorView *view = view_or_fail(tensor, caps);
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(tensor), refs + 1);
  fail_unless(!seen || !writable_map(tensor), "the view does not hold its mapping");
  DLManagedTensor *a = gst_ef_tensor_view_to_dlpack(view);
  auto *b = reinterpret_cast<DLManagedTensor *>(gst_ef_tensor_view_to_dlpack_address(view));
  gst_ef_tensor_view_unref(view);
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(tensor), refs + 1);
  a->deleter(a);
  fail_unless(!seen || !writable_map(tensor), "released while a DLPack tensor holds it");
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(tensor), refs + 1);
  b->deleter(b);
  // Unmapped and unreferenced once: the application's reference is the last.
  fail_unless(!seen || writable_map(tensor), "still mapped after the last deleter");
  fail_unless_equals_int(GST_MINI_OBJECT_REFCOUNT_VALUE(tensor), refs);
  fail_unless_equals_int(finalized, 0);
  gst_buffer_unref(tensor);
  fail_unless_equals_int(finalized, 1);
  gst_caps_unref(caps);
}
GST_END_TEST;

// data is the first element wherever the memory starts in its allocation;
// byte_offset stays 0 (consumers differ in honouring it).
GST_START_TEST(test_byte_offset) {
  const gsize bytes = gsize(kW) * kH * 3 * 4, skip = 72;
  GstBuffer *buffer = gst_buffer_new_allocate(nullptr, skip + bytes, nullptr);
  GstMapInfo whole;
  fail_unless(gst_buffer_map(buffer, &whole, GST_MAP_READ));
  const guint8 *base = whole.data;
  gst_buffer_unmap(buffer, &whole);
  gst_buffer_resize(buffer, skip, bytes);
  GstCaps *caps = gst_caps_from_string(caps_of(kCases[7]).c_str());
  GstEfTensorView *view = view_or_fail(buffer, caps);
  DLManagedTensor *dl = gst_ef_tensor_view_to_dlpack(view);
  fail_unless(static_cast<const guint8 *>(dl->dl_tensor.data) == base + skip);
  fail_unless_equals_uint64(dl->dl_tensor.byte_offset, 0);
  dl->deleter(dl);
  gst_ef_tensor_view_unref(view);
  gst_caps_unref(caps);
  gst_buffer_unref(buffer);
}
GST_END_TEST;

// attach-tensor: the frame's GstEfTensorMeta names its tensor, no caps needed.
GST_START_TEST(test_from_tensor_meta) {
  GstVideoInfo in = video_info(GST_VIDEO_FORMAT_RGB, 32, 24);
  GstBuffer *frame = zone_plate_frame(in);
  const std::string tensor_caps = caps_of(kCases[1]);  // uint8 NCHW
  GstBuffer *out = convert_one("efconvert backend=cpu attach-tensor=\"" + tensor_caps + "\"",
                               caps_text(in), caps_text(in), frame);
  GstEfTensorMeta *meta = gst_buffer_get_ef_tensor_meta(out);
  fail_unless(meta);
  GstEfTensorView *view = view_or_fail(out, nullptr);
  fail_unless(gst_ef_tensor_view_get_buffer(view) == meta->tensor);
  guint ndim = 0;
  const gint64 *shape = gst_ef_tensor_view_get_shape(view, &ndim);
  fail_unless_equals_int(ndim, 4);
  const gint64 want[] = {1, 3, kH, kW};
  for (int i = 0; i < 4; ++i)
    fail_unless_equals_int64(shape[i], want[i]);
  guint8 code = 0, bits = 0;
  gst_ef_tensor_view_get_dtype(view, &code, &bits);
  fail_unless(code == kDLUInt && bits == 8);
  gst_ef_tensor_view_unref(view);
  gst_buffer_unref(out);
  gst_buffer_unref(frame);
}
GST_END_TEST;

GST_START_TEST(test_bad_input) {
  const std::string good = caps_of(kCases[6]);
  GstBuffer *tensor = efconvert_tensor(good);
  GError *error = nullptr;
  fail_unless(!gst_ef_tensor_view_new(nullptr, nullptr, &error));
  fail_unless(error && error->code == GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR);
  g_clear_error(&error);
  expect_error(tensor, nullptr, GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR, "no GstEfTensorMeta");
  expect_error(tensor, "video/x-raw,format=RGB", GST_EF_TENSOR_VIEW_ERROR_NOT_TENSOR,
               "not other/tensors");
  expect_error(tensor, "other/tensors,format=flexible", GST_EF_TENSOR_VIEW_ERROR_CAPS,
               "format=flexible");
  expect_error(tensor, "other/tensors,num_tensors=2,types=float32,dimensions=(string)3:20:12:1",
               GST_EF_TENSOR_VIEW_ERROR_CAPS, "num_tensors");
  expect_error(tensor, "other/tensors,types=complex64,dimensions=(string)3:20:12:1",
               GST_EF_TENSOR_VIEW_ERROR_CAPS, "types=complex64");
  expect_error(tensor, "other/tensors,types=float32,dimensions=(string)3:x:12:1",
               GST_EF_TENSOR_VIEW_ERROR_CAPS, "dimensions=3:x:12:1");
  expect_error(tensor, "other/tensors,types=float32,dimensions=(string)3:0:12:1",
               GST_EF_TENSOR_VIEW_ERROR_CAPS, "positive");
  expect_error(tensor, "other/tensors,types=float32", GST_EF_TENSOR_VIEW_ERROR_CAPS,
               "no types or dimensions");
  // Caps of a larger tensor than the buffer holds.
  expect_error(tensor, "other/tensors,types=float32,dimensions=(string)3:20:13:1",
               GST_EF_TENSOR_VIEW_ERROR_TRUNCATED, "holds 2880 bytes, the tensor 3120");
  // A buffer cut short.
  GstBuffer *cut = gst_buffer_copy_region(tensor, GST_BUFFER_COPY_ALL, 0, 100);
  expect_error(cut, good.c_str(), GST_EF_TENSOR_VIEW_ERROR_TRUNCATED, "holds 100 bytes");
  gst_buffer_unref(cut);
  gst_buffer_unref(tensor);
}
GST_END_TEST;

// --- CUDA memory, through a stand-in -------------------------------------

namespace {

// GstCudaContext's property, on a context of our own.
struct FakeContext {
  GObject parent;
  guint device_id;
};
struct FakeContextClass {
  GObjectClass parent;
};
G_DEFINE_TYPE(FakeContext, fake_context, G_TYPE_OBJECT)
void fake_context_init(FakeContext *) {}
void fake_context_get_property(GObject *o, guint, GValue *v, GParamSpec *) {
  g_value_set_uint(v, reinterpret_cast<FakeContext *>(o)->device_id);
}
void fake_context_class_init(FakeContextClass *klass) {
  G_OBJECT_CLASS(klass)->get_property = fake_context_get_property;
  g_object_class_install_property(
      G_OBJECT_CLASS(klass), 1,
      g_param_spec_uint("cuda-device-id", "", "", 0, G_MAXUINT, 0, G_PARAM_READABLE));
}

// GstCudaMemory's head; the "device" bytes are host bytes here.
struct FakeCudaMemory {
  GstMemory mem;
  GObject *context;
  GstVideoInfo info;
  gpointer priv;
  guint8 *bytes;
  gpointer stream;
};
// As integers: GstCuda's flag lies past GstMapFlags' range (UBSan's enum
// check refuses such a value loaded as the enum).
constexpr guint kMapCuda = GST_MAP_FLAG_LAST << 1;
guint last_map_flags;

gpointer fake_map(GstMemory *mem, gsize, GstMapFlags flags) {
  last_map_flags = guint(flags);
  return reinterpret_cast<FakeCudaMemory *>(mem)->bytes;
}
void fake_unmap(GstMemory *) {}
void fake_free(GstAllocator *, GstMemory *mem) {
  auto *m = reinterpret_cast<FakeCudaMemory *>(mem);
  g_object_unref(m->context);
  g_free(m->bytes);
  g_free(m);
}

struct FakeAllocator {
  GstAllocator parent;
};
struct FakeAllocatorClass {
  GstAllocatorClass parent;
};
G_DEFINE_TYPE(FakeAllocator, fake_allocator, GST_TYPE_ALLOCATOR)
void fake_allocator_init(FakeAllocator *self) {
  auto *a = GST_ALLOCATOR(self);
  a->mem_type = "gst.cuda.memory";
  a->mem_map = fake_map;
  a->mem_unmap = fake_unmap;
  GST_OBJECT_FLAG_SET(a, GST_ALLOCATOR_FLAG_CUSTOM_ALLOC);
}
void fake_allocator_class_init(FakeAllocatorClass *klass) {
  GST_ALLOCATOR_CLASS(klass)->free = fake_free;
}

GstAllocator *fake_allocator() {
  static GstAllocator *allocator = GST_ALLOCATOR(g_object_new(fake_allocator_get_type(), nullptr));
  return allocator;
}

GstMemory *fake_cuda_memory(gsize size, guint device_id) {
  auto *m = g_new0(FakeCudaMemory, 1);
  gst_memory_init(&m->mem, GstMemoryFlags(0), fake_allocator(), nullptr, size, 0, 0, size);
  auto *context = static_cast<FakeContext *>(g_object_new(fake_context_get_type(), nullptr));
  context->device_id = device_id;
  m->context = G_OBJECT(context);
  m->bytes = static_cast<guint8 *>(g_malloc0(size));
  return &m->mem;
}

constexpr guint kNeedSync = GST_MEMORY_FLAG_LAST << 2;

}  // namespace

// GstCuda 1.24+'s stream API as libgstef finds it in the process.
extern "C" G_GNUC_UNUSED __attribute__((visibility("default"))) gpointer gst_cuda_memory_get_stream(
    GstMemory *mem) {
  return reinterpret_cast<FakeCudaMemory *>(mem)->stream;
}
extern "C" G_GNUC_UNUSED __attribute__((visibility("default"))) gpointer gst_cuda_stream_get_handle(
    gpointer stream) {
  return static_cast<guint8 *>(stream) + 1;  // the CUstream of the GstCudaStream
}

GST_START_TEST(test_cuda_memory) {
  const std::string caps_text = caps_of(kCases[7]);
  GstCaps *caps = gst_caps_from_string(caps_text.c_str());
  const gsize bytes = gsize(kW) * kH * 3 * 4;
  GstMemory *mem = fake_cuda_memory(bytes, 3);
  GstBuffer *buffer = gst_buffer_new();
  gst_buffer_append_memory(buffer, mem);
  GstEfTensorView *view = view_or_fail(buffer, caps);
  fail_unless(last_map_flags & kMapCuda, "not mapped for the device address");
  DLManagedTensor *dl = gst_ef_tensor_view_to_dlpack(view);
  fail_unless_equals_int(dl->dl_tensor.device.device_type, kDLCUDA);
  fail_unless_equals_int(dl->dl_tensor.device.device_id, 3);
  fail_unless(dl->dl_tensor.data == reinterpret_cast<FakeCudaMemory *>(mem)->bytes);
  // Written and synchronised by its producer: nothing to wait on.
  fail_unless_equals_uint64(gst_ef_tensor_view_get_cuda_stream(view), 0);
  dl->deleter(dl);
  gst_ef_tensor_view_unref(view);

  // Still being written on the memory's stream (NEED_SYNC): that stream.
  static guint8 stream_object[2];
  reinterpret_cast<FakeCudaMemory *>(mem)->stream = stream_object;
  GST_MINI_OBJECT_FLAG_SET(mem, kNeedSync);
  view = view_or_fail(buffer, caps);
  fail_unless_equals_uint64(gst_ef_tensor_view_get_cuda_stream(view),
                            guint64(uintptr_t(stream_object + 1)));
  gst_ef_tensor_view_unref(view);

  // Two memories: no one device address.
  gst_buffer_append_memory(buffer, fake_cuda_memory(16, 0));
  expect_error(buffer, caps_text.c_str(), GST_EF_TENSOR_VIEW_ERROR_MEMORY, "over 2 memories");
  gst_buffer_unref(buffer);
  gst_caps_unref(caps);
}
GST_END_TEST;

static Suite *tensor_view_suite() {
  Suite *s = suite_create("tensor_view");
  TCase *tc = tcase_create("general");
  suite_add_tcase(s, tc);
  tcase_add_test(tc, test_shape_strides_dtype);
  tcase_add_test(tc, test_deleter_releases_once);
  tcase_add_test(tc, test_byte_offset);
  tcase_add_test(tc, test_from_tensor_meta);
  tcase_add_test(tc, test_bad_input);
  tcase_add_test(tc, test_cuda_memory);
  return s;
}

GST_CHECK_MAIN(tensor_view);
