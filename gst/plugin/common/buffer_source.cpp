// SPDX-License-Identifier: LGPL-2.1-or-later
#include "buffer_source.hpp"

#include <gst/allocators/allocators.h>
#include <gst/ef/gstefidentity.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "common/gst_ptr.hpp"

namespace ef::gst {

int BufferSource::fd_of(uint32_t plane) const {
  GstMemory *mem = gst_buffer_peek_memory(buffer_, layout_.planes[plane].memory);
  return gst_is_fd_memory(mem) ? gst_fd_memory_get_fd(mem) : -1;
}

namespace {

// The base address of system memory's root allocation, derived afresh.
Result<BufferIdentity> host_identity(GstMemory *mem) {
  GstMemory *root = mem;
  while (root->parent)
    root = root->parent;
  GstMapInfo map;
  if (!gst_memory_map(root, &map, GST_MAP_READ))
    return Error{EINVAL, "the memory cannot be mapped"};
  const guint8 *base = map.data - root->offset;
  gst_memory_unmap(root, &map);
  return identity_from_host_ptr(base);
}

}  // namespace

Result<BufferIdentity> BufferSource::derive_identity(uint32_t plane) const {
  GstMemory *mem = gst_buffer_peek_memory(buffer_, layout_.planes[plane].memory);
  if (key_.planes[plane].kind == IdentityKind::HostPtr && !gst_is_fd_memory(mem))
    return host_identity(mem);
  return rederive_fd_identity(fd_of(plane), key_.planes[plane].kind);
}

Retainer BufferSource::retain() const {
  auto held = std::make_shared<std::vector<Retainer>>();
  for (uint32_t p = 0; p < layout_.n_planes; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(buffer_, layout_.planes[p].memory);
    if (!gst_is_fd_memory(mem)) {
      // A ref keeps the allocation, so its address cannot be handed out again.
      held->push_back(
          Retainer::from_anchor(std::shared_ptr<GstMemory>(gst_memory_ref(mem), gst_memory_unref)));
      continue;
    }
    auto retained = Retainer::dup_fd(fd_of(p));
    if (!retained)
      return {};  // nothing pinned: the import is used once, never cached
    held->push_back(std::move(retained).value());
  }
  return Retainer::from_anchor(std::move(held));
}

Result<ImportKey> frame_import_key(GstBuffer *buffer, const FrameLayout &layout) {
  ImportKey key;
  key.layout = import_layout(layout);
  for (guint p = 0; p < layout.n_planes; ++p) {
    GstEfIdentity identity;
    GError *raw = nullptr;
    if (!gst_ef_memory_get_identity(gst_buffer_peek_memory(buffer, layout.planes[p].memory),
                                    &identity, &raw)) {
      ErrorPtr error(raw);
      int err = error->code == GST_EF_IDENTITY_ERROR_CLOSED ? EBADF : EINVAL;
      return Error{err, "plane " + std::to_string(p) + ": " + error->message};
    }
    key.planes[p] = BufferIdentity{IdentityKind(identity.kind), identity.id};
  }
  return key;
}

}  // namespace ef::gst
