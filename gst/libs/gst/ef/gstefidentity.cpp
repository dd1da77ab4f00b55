// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gst/ef/gstefidentity.h"

#include <gst/allocators/allocators.h>

#include "ef/identity.hpp"

G_DEFINE_QUARK(gst - ef - identity - error - quark, gst_ef_identity_error)

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
  // System memory: the base address of the root allocation. Mapping the root
  // is free for system memory and gives the same base for every share of it.
  GstMemory *root = mem;
  while (root->parent)
    root = root->parent;
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

}  // namespace

gboolean gst_ef_memory_get_identity(GstMemory *mem, GstEfIdentity *identity, GError **error) {
  g_return_val_if_fail(mem != nullptr, FALSE);
  g_return_val_if_fail(identity != nullptr, FALSE);
  auto *memo = static_cast<Memo *>(gst_mini_object_get_qdata(GST_MINI_OBJECT(mem), memo_quark()));
  if (memo == nullptr) {
    memo = new Memo{derive(mem)};
    gst_mini_object_set_qdata(GST_MINI_OBJECT(mem), memo_quark(), memo,
                              [](gpointer p) { delete static_cast<Memo *>(p); });
  }
  if (!memo->result) {
    g_set_error(error, GST_EF_IDENTITY_ERROR, memo->result.error().code, "%s",
                memo->result.error().message.c_str());
    return FALSE;
  }
  identity->id = memo->result->id;
  identity->kind = static_cast<guint32>(memo->result->kind);
  identity->_reserved = 0;
  return TRUE;
}
