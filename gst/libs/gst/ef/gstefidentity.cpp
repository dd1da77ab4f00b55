// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gstefidentity.h"

#include <gst/allocators/allocators.h>
#ifdef EF_HAVE_GSTGL_HEADERS
#include <gst/gl/gstglbuffer.h>
#endif

#include <cerrno>
#include <mutex>
#include <optional>
#include <string>

#include "ef/identity.hpp"

// G_DEFINE_QUARK stringifies its first argument: clang-format must not space it.
// clang-format off
G_DEFINE_QUARK(gst-ef-identity-error-quark, gst_ef_identity_error)
// clang-format on

static GstEfIdentity *identity_copy(const GstEfIdentity *identity) {
  return static_cast<GstEfIdentity *>(g_memdup2(identity, sizeof *identity));
}
G_DEFINE_BOXED_TYPE(GstEfIdentity, gst_ef_identity, identity_copy, g_free)

namespace {

// What a memory's identity derivation found, kept on the memory.
struct Memo {
  ef::Result<ef::BufferIdentity> result;
};

GQuark memo_quark() {
  static GQuark quark = g_quark_from_static_string("GstEfIdentityMemo");
  return quark;
}

ef::Result<ef::BufferIdentity> derive(GstMemory *mem) {
  if (gst_is_fd_memory(mem))
    return ef::identity_from_fd(gst_fd_memory_get_fd(mem));
#ifdef EF_HAVE_GSTGL_HEADERS
  // A GL buffer object (GstGLBuffer, from GstGL's buffer allocator): the
  // Pbo of its name, valid in its context. Recognised by the allocator's
  // memory type, so that this library needs GstGL's headers, not GstGL.
  {
    GstMemory *root = mem;
    while (root->parent)
      root = root->parent;
    if (root->allocator && g_strcmp0(root->allocator->mem_type, GST_GL_BUFFER_ALLOCATOR_NAME) == 0)
      return ef::identity_from_gl_buffer(reinterpret_cast<GstGLBuffer *>(root)->id);
  }
#endif
  // System memory: the base address of the root allocation. Mapping the root
  // is free for system memory and gives the same base for every share of it.
  GstMemory *root = mem;
  while (root->parent)
    root = root->parent;
  // Any other memory may copy when mapped (GL memory downloads its texture
  // into a CPU shadow), and the address would then name the shadow, not the
  // memory: such memory has no identity rather than a wrong one.
  if (!gst_memory_is_type(root, GST_ALLOCATOR_SYSMEM))
    return ef::Error{EINVAL, "memory of type " +
                                 std::string(root->allocator && root->allocator->mem_type
                                                 ? root->allocator->mem_type
                                                 : "(none)") +
                                 " is neither fd nor system memory: it has no identity"};
  GstMapInfo map;
  if (!gst_memory_map(root, &map, GST_MAP_READ))
    return ef::Error{
        EINVAL, "memory of allocator " +
                    std::string(root->allocator ? GST_OBJECT_NAME(root->allocator) : "(none)") +
                    " cannot be mapped"};
  const guint8 *base = map.data - root->offset;
  gst_memory_unmap(root, &map);
  return ef::identity_from_host_ptr(base);
}

// The core reports errno values; the library's domain has its own codes.
GstEfIdentityError error_code(int err) {
  switch (err) {
    case EINVAL:
      return GST_EF_IDENTITY_ERROR_NO_IDENTITY;
    case EBADF:
      return GST_EF_IDENTITY_ERROR_CLOSED;
    default:
      return GST_EF_IDENTITY_ERROR_FAILED;
  }
}

}  // namespace

gboolean gst_ef_memory_get_identity(GstMemory *mem, GstEfIdentity *identity, GError **error) {
  g_return_val_if_fail(mem != nullptr, FALSE);
  g_return_val_if_fail(identity != nullptr, FALSE);
  // One memory can be seen by several threads at once (tee into two
  // branches): the memo is read and published under a lock, and never
  // replaced, so no thread can be left holding a freed one.
  static std::mutex memo_lock;
  auto *mo = GST_MINI_OBJECT(mem);
  // What the memo says, taken under the lock: the identity, or the error's
  // code and, only where the caller asks for it, its message. A memory
  // without an identity (every frame of a GL input) then allocates nothing.
  std::optional<ef::BufferIdentity> found;
  int code = 0;
  std::string message;
  auto take = [&](const Memo &memo) {
    if (memo.result) {
      found = memo.result.value();
      return;
    }
    code = memo.result.error().code;
    if (error)
      message = memo.result.error().message;
  };
  bool known;
  {
    std::lock_guard lock(memo_lock);
    auto *memo = static_cast<Memo *>(gst_mini_object_get_qdata(mo, memo_quark()));
    if ((known = memo != nullptr))
      take(*memo);
  }
  if (!known) {
    ef::Result<ef::BufferIdentity> derived = derive(mem);  // syscalls: not under the lock
    std::lock_guard lock(memo_lock);
    auto *memo = static_cast<Memo *>(gst_mini_object_get_qdata(mo, memo_quark()));
    if (!memo) {
      memo = new Memo{std::move(derived)};
      gst_mini_object_set_qdata(mo, memo_quark(), memo,
                                [](gpointer p) { delete static_cast<Memo *>(p); });
    }
    take(*memo);
  }
  if (!found) {
    g_set_error(error, GST_EF_IDENTITY_ERROR, error_code(code), "%s", message.c_str());
    return FALSE;
  }
  identity->id = found->id;
  identity->kind = static_cast<guint32>(found->kind);
  identity->_reserved = 0;
  return TRUE;
}
