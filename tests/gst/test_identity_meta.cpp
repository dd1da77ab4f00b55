// SPDX-License-Identifier: LGPL-2.1-or-later
// GstEfIdentityMeta and memory identities (no GL needed).
#include <cstring>

#include <gst/allocators/allocators.h>
#include <gst/check/gstcheck.h>
#include <ef/ef.h>
#include <gst/ef/gstef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frames.hpp"
#ifdef EF_COUNT_ALLOCATIONS
#include "alloc_count.hpp"
#endif

using namespace ef::test;

static GstVideoInfo rgba_info() {
  GstVideoInfo info;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_RGBA, 16, 8);
  return info;
}

GST_START_TEST(test_memfd_identity_is_inode) {
  GstBuffer *buf = memfd_frame(rgba_info(), 1);
  GstMemory *mem = gst_buffer_peek_memory(buf, 0);
  GstEfIdentity id;
  fail_unless(gst_ef_memory_get_identity(mem, &id, nullptr));
  struct stat st;
  fail_unless_equals_int(fstat(gst_fd_memory_get_fd(mem), &st), 0);
  fail_unless_equals_int(id.kind, GST_EF_IDENTITY_KIND_DMA_BUF);
  fail_unless_equals_uint64(id.id, (guint64(st.st_dev) << 32) ^ guint64(st.st_ino));
  gst_buffer_unref(buf);
}
GST_END_TEST;

// Two GstMemory wrappers of one memfd (a dup each) name the same bytes.
GST_START_TEST(test_rewrapped_fd_same_identity) {
  GstVideoInfo info = rgba_info();
  int fd = make_memfd("ef-meta", info.size);
  GstBuffer *a = fd_frame(fd, info, 1);
  GstBuffer *b = fd_frame(dup(fd), info, 1);
  GstEfIdentity ia, ib;
  fail_unless(gst_ef_memory_get_identity(gst_buffer_peek_memory(a, 0), &ia, nullptr));
  fail_unless(gst_ef_memory_get_identity(gst_buffer_peek_memory(b, 0), &ib, nullptr));
  fail_unless_equals_uint64(ia.id, ib.id);
  fail_unless(gst_buffer_peek_memory(a, 0) != gst_buffer_peek_memory(b, 0));
  close(gst_fd_memory_get_fd(gst_buffer_peek_memory(b, 0)));
  gst_buffer_unref(a);
  gst_buffer_unref(b);
  close(fd);
}
GST_END_TEST;

GST_START_TEST(test_system_memory_is_host_ptr) {
  GstBuffer *buf = system_frame(rgba_info(), 1);
  GstEfIdentity id;
  fail_unless(gst_ef_memory_get_identity(gst_buffer_peek_memory(buf, 0), &id, nullptr));
  fail_unless_equals_int(id.kind, GST_EF_IDENTITY_KIND_HOST_PTR);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_READ);
  fail_unless_equals_uint64(id.id, (6ull << 56) ^ guint64(uintptr_t(map.data)));
  gst_buffer_unmap(buf, &map);
  gst_buffer_unref(buf);
}
GST_END_TEST;

// A memory that is neither fd nor system memory (GL memory, a device
// allocator's) may copy when mapped: deriving its identity must not map it.
struct CountingAllocator {
  GstAllocator parent;
  int maps;
};
struct CountingAllocatorClass {
  GstAllocatorClass parent_class;
};
G_DEFINE_TYPE(CountingAllocator, counting_allocator, GST_TYPE_ALLOCATOR)

static gpointer counting_map(GstMemory *mem, gsize, GstMapFlags) {
  auto *self = reinterpret_cast<CountingAllocator *>(mem->allocator);
  ++self->maps;
  static guint8 shadow[64];  // what a download would fill
  return shadow;
}
static void counting_unmap(GstMemory *) {}
static void counting_free(GstAllocator *, GstMemory *mem) {
  g_free(mem);
}
static void counting_allocator_class_init(CountingAllocatorClass *klass) {
  GST_ALLOCATOR_CLASS(klass)->free = counting_free;
}
static void counting_allocator_init(CountingAllocator *self) {
  GstAllocator *alloc = GST_ALLOCATOR(self);
  alloc->mem_type = "EfTestDeviceMemory";
  alloc->mem_map = counting_map;
  alloc->mem_unmap = counting_unmap;
}

GST_START_TEST(test_device_memory_never_mapped) {
  auto *alloc =
      static_cast<CountingAllocator *>(g_object_new(counting_allocator_get_type(), nullptr));
  GstMemory *mem = g_new0(GstMemory, 1);
  gst_memory_init(mem, GstMemoryFlags(0), GST_ALLOCATOR(alloc), nullptr, 64, 0, 0, 64);
  GstEfIdentity id;
  GError *error = nullptr;
  fail_if(gst_ef_memory_get_identity(mem, &id, &error));
  fail_unless_equals_int(alloc->maps, 0);
  fail_unless(error && strstr(error->message, "EfTestDeviceMemory"), "%s",
              error ? error->message : "no error");
  g_clear_error(&error);
  // The answer is kept: asking again still maps nothing.
  fail_if(gst_ef_memory_get_identity(mem, &id, nullptr));
  fail_unless_equals_int(alloc->maps, 0);
  gst_memory_unref(mem);
  gst_object_unref(alloc);
}
GST_END_TEST;

// The GType of GstEfIdentityKind names exactly the core's pinned kinds, with
// their values: bindings see the same numbers as the C ABI.
GST_START_TEST(test_identity_kind_gtype_pinned) {
  struct Pin {
    const char *nick;
    guint value;
  };
  const Pin pins[] = {{"dma-buf", EF_IDENTITY_KIND_DMA_BUF},
                      {"shm", EF_IDENTITY_KIND_SHM},
                      {"host-ptr", EF_IDENTITY_KIND_HOST_PTR},
                      {"pbo", EF_IDENTITY_KIND_PBO},
                      {"vk-image", EF_IDENTITY_KIND_VK_IMAGE}};
  auto *klass = static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_EF_IDENTITY_KIND));
  fail_unless_equals_int(klass->n_values, G_N_ELEMENTS(pins));
  for (const Pin &pin : pins) {
    GEnumValue *v = g_enum_get_value_by_nick(klass, pin.nick);
    fail_unless(v != nullptr, "no kind %s", pin.nick);
    fail_unless_equals_int(v->value, pin.value);
  }
  g_type_class_unref(klass);
  // The error domain has its GType too, and the codes bindings see.
  auto *errors = static_cast<GEnumClass *>(g_type_class_ref(GST_TYPE_EF_IDENTITY_ERROR));
  fail_unless(g_enum_get_value(errors, GST_EF_IDENTITY_ERROR_CLOSED) != nullptr);
  g_type_class_unref(errors);
}
GST_END_TEST;

// A closed fd is its own error code in the library's domain.
GST_START_TEST(test_closed_fd_error_code) {
  GstVideoInfo info = rgba_info();
  int fd = make_memfd("ef-closed", info.size);
  GstBuffer *buf = fd_frame(fd, info, 1);
  close(fd);  // fd_frame wraps with DONT_CLOSE: the memory now names a dead fd
  GError *error = nullptr;
  GstEfIdentity id;
  fail_if(gst_ef_memory_get_identity(gst_buffer_peek_memory(buf, 0), &id, &error));
  fail_unless(g_error_matches(error, GST_EF_IDENTITY_ERROR, GST_EF_IDENTITY_ERROR_CLOSED), "%s",
              error ? error->message : "no error");
  g_clear_error(&error);
  gst_buffer_unref(buf);
}
GST_END_TEST;

#ifdef EF_COUNT_ALLOCATIONS
// A memory without an identity asked again (a GL input's every frame, in
// efconvert's identity meta) allocates nothing: the memo's error message is
// copied only for a caller that asks for the error (it was, every frame).
GST_START_TEST(test_no_identity_allocates_nothing) {
  GstVideoInfo info = rgba_info();
  int fd = make_memfd("ef-no-identity", info.size);
  GstBuffer *buf = fd_frame(fd, info, 1);
  close(fd);
  GstMemory *mem = gst_buffer_peek_memory(buf, 0);
  GstEfIdentity id;
  fail_if(gst_ef_memory_get_identity(mem, &id, nullptr));  // derived and kept
  // No Check assertion inside the count: each sends its location to the
  // parent process, which allocates.
  int found = 0;
  const uint64_t before = ef::bench::thread_allocations();
  for (int i = 0; i < 100; ++i)
    found += gst_ef_memory_get_identity(mem, &id, nullptr);
  const uint64_t made = ef::bench::thread_allocations() - before;
  fail_unless_equals_int(found, 0);
  fail_unless_equals_uint64(made, 0);
  GError *error = nullptr;  // asked for, the message is still there
  fail_if(gst_ef_memory_get_identity(mem, &id, &error));
  fail_unless(g_error_matches(error, GST_EF_IDENTITY_ERROR, GST_EF_IDENTITY_ERROR_CLOSED) &&
                  std::strlen(error->message) > 0,
              "%s", error ? error->message : "no error");
  g_clear_error(&error);
  gst_buffer_unref(buf);
}
GST_END_TEST;
#endif

GST_START_TEST(test_non_buffer_fd_refused) {
  int p[2];
  fail_unless_equals_int(pipe(p), 0);
  GstAllocator *alloc = gst_fd_allocator_new();
  GstMemory *mem = gst_fd_allocator_alloc(alloc, p[0], 4096, GST_FD_MEMORY_FLAG_DONT_CLOSE);
  GstEfIdentity id;
  GError *error = nullptr;
  fail_if(gst_ef_memory_get_identity(mem, &id, &error));
  fail_unless(error != nullptr);
  fail_unless(g_strrstr(error->message, "no buffer identity") != nullptr, "%s", error->message);
  g_error_free(error);
  gst_memory_unref(mem);
  gst_object_unref(alloc);
  close(p[0]);
  close(p[1]);
}
GST_END_TEST;

// Kept on copies that share the memories; dropped when the bytes are others.
GST_START_TEST(test_meta_copy_semantics) {
  GstBuffer *buf = memfd_frame(rgba_info(), 1);
  GstEfIdentityMeta *meta = gst_buffer_add_ef_identity_meta(buf, nullptr);
  fail_unless(meta != nullptr);
  fail_unless_equals_int(meta->n_identities, 1);
  guint64 id = meta->identities[0].id;

  GstBuffer *shallow = gst_buffer_copy(buf);
  GstEfIdentityMeta *kept = gst_buffer_get_ef_identity_meta(shallow);
  fail_unless(kept != nullptr);
  fail_unless_equals_uint64(kept->identities[0].id, id);

  GstBuffer *deep = gst_buffer_copy_deep(buf);
  fail_unless(gst_buffer_get_ef_identity_meta(deep) == nullptr);

  GstBuffer *region = gst_buffer_copy_region(buf, GST_BUFFER_COPY_ALL, 0, 16);
  fail_unless(gst_buffer_get_ef_identity_meta(region) == nullptr);

  gst_buffer_unref(region);
  gst_buffer_unref(deep);
  gst_buffer_unref(shallow);
  gst_buffer_unref(buf);
}
GST_END_TEST;

GST_START_TEST(test_meta_registered_with_memory_tag) {
  // GST_META_TAG_MEMORY is deprecated (gone with GST_DISABLE_DEPRECATED).
  fail_unless(gst_meta_api_type_has_tag(GST_EF_IDENTITY_META_API_TYPE,
                                        g_quark_from_static_string(GST_META_TAG_MEMORY_STR)));
}
GST_END_TEST;

// One identity per memory: NV12 in two memfds carries two.
GST_START_TEST(test_two_memories_two_identities) {
  GstBuffer *buf = gst_buffer_new();
  GstAllocator *alloc = gst_fd_allocator_new();
  gst_buffer_append_memory(
      buf, gst_fd_allocator_alloc(alloc, make_memfd("y", 4096), 4096, GST_FD_MEMORY_FLAG_NONE));
  gst_buffer_append_memory(
      buf, gst_fd_allocator_alloc(alloc, make_memfd("uv", 2048), 2048, GST_FD_MEMORY_FLAG_NONE));
  gst_object_unref(alloc);
  GstEfIdentityMeta *meta = gst_buffer_add_ef_identity_meta(buf, nullptr);
  fail_unless(meta != nullptr);
  fail_unless_equals_int(meta->n_identities, 2);
  fail_unless(meta->identities[0].id != meta->identities[1].id);
  gst_buffer_unref(buf);
}
GST_END_TEST;

// Through queue and tee (which share memories) the meta arrives intact.
GST_START_TEST(test_meta_survives_queue_and_tee) {
  GstElement *pipeline = gst_parse_launch(
      "appsrc name=src ! queue ! tee name=t t. ! queue ! appsink name=a sync=false "
      "t. ! queue ! appsink name=b sync=false",
      nullptr);
  fail_unless(pipeline != nullptr);
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstVideoInfo info = rgba_info();
  GstCaps *caps = caps_for(info);
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, nullptr);
  gst_caps_unref(caps);
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBuffer *buf = memfd_frame(info, 3);
  guint64 id = gst_buffer_add_ef_identity_meta(buf, nullptr)->identities[0].id;
  GstFlowReturn ret;
  g_signal_emit_by_name(src, "push-buffer", buf, &ret);
  fail_unless_equals_int(ret, GST_FLOW_OK);
  gst_buffer_unref(buf);
  for (const char *name : {"a", "b"}) {
    GstElement *sink = gst_bin_get_by_name(GST_BIN(pipeline), name);
    GstSample *sample = nullptr;
    g_signal_emit_by_name(sink, "try-pull-sample", 5 * GST_SECOND, &sample);
    fail_unless(sample != nullptr);
    GstEfIdentityMeta *meta = gst_buffer_get_ef_identity_meta(gst_sample_get_buffer(sample));
    fail_unless(meta != nullptr, "branch %s lost the identity meta", name);
    fail_unless_equals_uint64(meta->identities[0].id, id);
    gst_sample_unref(sample);
    gst_object_unref(sink);
  }
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(pipeline);
}
GST_END_TEST;

static Suite *meta_suite() {
  Suite *s = suite_create("identity_meta");
  TCase *tc = tcase_create("meta");
  tcase_add_test(tc, test_memfd_identity_is_inode);
#ifdef EF_COUNT_ALLOCATIONS
  tcase_add_test(tc, test_no_identity_allocates_nothing);
#endif
  tcase_add_test(tc, test_rewrapped_fd_same_identity);
  tcase_add_test(tc, test_system_memory_is_host_ptr);
  tcase_add_test(tc, test_non_buffer_fd_refused);
  tcase_add_test(tc, test_device_memory_never_mapped);
  tcase_add_test(tc, test_identity_kind_gtype_pinned);
  tcase_add_test(tc, test_closed_fd_error_code);
  tcase_add_test(tc, test_meta_copy_semantics);
  tcase_add_test(tc, test_meta_registered_with_memory_tag);
  tcase_add_test(tc, test_two_memories_two_identities);
  tcase_add_test(tc, test_meta_survives_queue_and_tee);
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(meta);
