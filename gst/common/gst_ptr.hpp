// SPDX-License-Identifier: LGPL-2.1-or-later
// RAII owners for GLib and GStreamer references, and a GMutex locker, so that
// no early return can leak a ref or leave a lock held.
#pragma once

#include <gst/gst.h>

#include <memory>

namespace ef::gst {

template <typename T>
struct ObjectUnref {
  void operator()(T *p) const { gst_object_unref(p); }
};
template <typename T>
using ObjectPtr = std::unique_ptr<T, ObjectUnref<T>>;

template <typename T>
struct MiniObjectUnref {
  void operator()(T *p) const { gst_mini_object_unref(GST_MINI_OBJECT_CAST(p)); }
};
using BufferPtr = std::unique_ptr<GstBuffer, MiniObjectUnref<GstBuffer>>;
using CapsPtr = std::unique_ptr<GstCaps, MiniObjectUnref<GstCaps>>;
using MemoryPtr = std::unique_ptr<GstMemory, MiniObjectUnref<GstMemory>>;

struct ErrorFree {
  void operator()(GError *e) const { g_error_free(e); }
};
using ErrorPtr = std::unique_ptr<GError, ErrorFree>;

// A counted GstMemory reference that can be copied, for retainers.
inline std::shared_ptr<const void> share_memory(GstMemory *mem) {
  return std::shared_ptr<const void>(gst_memory_ref(mem),
                                     [](const void *p) { gst_memory_unref((GstMemory *)p); });
}

class MutexLocker {
 public:
  explicit MutexLocker(GMutex *mutex) : mutex_(mutex) { g_mutex_lock(mutex_); }
  ~MutexLocker() { g_mutex_unlock(mutex_); }
  MutexLocker(const MutexLocker &) = delete;
  MutexLocker &operator=(const MutexLocker &) = delete;

 private:
  GMutex *mutex_;
};

}  // namespace ef::gst
