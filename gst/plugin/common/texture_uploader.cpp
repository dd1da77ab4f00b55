// SPDX-License-Identifier: LGPL-2.1-or-later
#include "texture_uploader.hpp"

#include <cerrno>
#include <cstring>

#include "common/gl_pool.hpp"
#include "common/gst_ptr.hpp"

namespace ef::gst {

TextureUploader::TextureUploader(GstGLContext *context, const GstVideoInfo &info,
                                 std::vector<GstGLFormat> formats)
    : context_(context), info_(info), formats_(std::move(formats)) {}

TextureUploader::~TextureUploader() {
  if (pool_) {
    gst_buffer_pool_set_active(pool_, FALSE);
    gst_object_unref(pool_);
  }
  for (GstBuffer *buffer : own_)
    gst_buffer_unref(buffer);
}

// At most this many textures of our own: a frame holds one while its pass
// is issued, and the one handed out last is handed out again last (a
// texture just released may still be sampled by commands the GPU has not
// run yet, as keep_one_texture_free() says for pools).
constexpr size_t kOwnTextures = 4;

Result<GstBuffer *> TextureUploader::next_own() {
  // In turn from the one after the last handed out, which comes last; one
  // held elsewhere is passed over. Two at least.
  for (size_t i = 0; own_.size() >= 2 && i < own_.size(); ++i) {
    const size_t k = (next_ + i) % own_.size();
    if (GST_MINI_OBJECT_REFCOUNT_VALUE(own_[k]) == 1) {
      next_ = k + 1;
      return gst_buffer_ref(own_[k]);
    }
  }
  if (own_.size() == kOwnTextures)
    return Error{EIO, "every uploaded texture is still in use"};
  // Each plane in a memory of its own, no padding between them: the
  // offsets GstGL's upload finds each plane's rows by, as its pool sets
  // them (the caps' put a 4:2:0 luma plane of odd height a row taller).
  GstVideoInfo planes = info_;
  planes.size = 0;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&planes); ++p) {
    planes.offset[p] = planes.size;
    planes.size += gst_gl_get_plane_data_size(&planes, nullptr, p);
  }
  ObjectPtr<GstGLMemoryAllocator> allocator(gst_gl_memory_allocator_get_default(context_));
  GstGLVideoAllocationParams *params = gst_gl_video_allocation_params_new(
      context_, nullptr, &planes, 0, nullptr, GST_GL_TEXTURE_TARGET_2D, formats_[0]);
  GstBuffer *buffer = gst_buffer_new();
  const gboolean made =
      gst_gl_memory_setup_buffer(allocator.get(), buffer, params, formats_.data(), nullptr, 0);
  gst_gl_allocation_params_free(reinterpret_cast<GstGLAllocationParams *>(params));
  if (!made) {
    gst_buffer_unref(buffer);
    return Error{EIO, "cannot make a texture buffer"};
  }
  own_.push_back(buffer);
  next_ = own_.size();
  return gst_buffer_ref(buffer);
}

Result<GstBuffer *> TextureUploader::acquire() {
  if (!formats_.empty())
    return next_own();
  if (!pool_) {
    GstBufferPool *pool = gst_gl_buffer_pool_new(context_);
    GstStructure *config = gst_buffer_pool_get_config(pool);
    CapsPtr caps(gst_video_info_to_caps(&info_));
    gst_caps_set_features(caps.get(), 0,
                          gst_caps_features_new(GST_CAPS_FEATURE_MEMORY_GL_MEMORY, nullptr));
    gst_buffer_pool_config_set_params(config, caps.get(), guint(info_.size), 2, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    keep_one_texture_free(config, true);
    ObjectPtr<GstGLMemoryAllocator> allocator(gst_gl_memory_allocator_get_default(context_));
    gst_buffer_pool_config_set_allocator(config, GST_ALLOCATOR(allocator.get()), nullptr);
    if (!gst_buffer_pool_set_config(pool, config) || !gst_buffer_pool_set_active(pool, TRUE)) {
      gst_object_unref(pool);
      return Error{EIO, "cannot create a GL texture pool"};
    }
    pool_ = pool;
  }
  GstBuffer *out = nullptr;
  if (gst_buffer_pool_acquire_buffer(pool_, &out, nullptr) != GST_FLOW_OK)
    return Error{EIO, "the GL texture pool gave no buffer"};
  return out;
}

// Our own textures' buffers are shared with the ring, so not writable; their
// memories are (one buffer holds each): the planes are written through them.
Result<void> TextureUploader::copy_planes(GstBuffer *in, GstBuffer *out) {
  GstVideoFrame src;
  if (!gst_video_frame_map(&src, &info_, in, GST_MAP_READ))
    return Error{EINVAL, "Cannot read the input frame (closed or non-mappable fd?)"};
  Result<void> result;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES(&info_) && result; ++p) {
    GstMemory *mem = gst_buffer_peek_memory(out, p);
    GstMapInfo map;
    if (!gst_memory_map(mem, &map, GST_MAP_WRITE)) {
      result = Error{EIO, "Cannot map a texture of ours"};
      break;
    }
    // Planar formats: plane p holds component p.
    const gint stride = GST_VIDEO_INFO_PLANE_STRIDE(&reinterpret_cast<GstGLMemory *>(mem)->info, p);
    const gsize row =
        gsize(GST_VIDEO_INFO_COMP_WIDTH(&info_, p)) * gsize(GST_VIDEO_INFO_COMP_PSTRIDE(&info_, p));
    for (gint y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info_, p); ++y)
      std::memcpy(map.data + gsize(y) * gsize(stride),
                  static_cast<const guint8 *>(GST_VIDEO_FRAME_PLANE_DATA(&src, p)) +
                      gsize(y) * gsize(GST_VIDEO_FRAME_PLANE_STRIDE(&src, p)),
                  row);
    gst_memory_unmap(mem, &map);
  }
  gst_video_frame_unmap(&src);
  return result;
}

Result<void> TextureUploader::copy(GstBuffer *in, GstBuffer *out) {
  if (!formats_.empty())
    return copy_planes(in, out);
  GstVideoFrame src, dst;
  if (!gst_video_frame_map(&src, &info_, in, GST_MAP_READ))
    return Error{EINVAL, "Cannot read the input frame (closed or non-mappable fd?)"};
  if (!gst_video_frame_map(&dst, &info_, out, GST_MAP_WRITE)) {
    gst_video_frame_unmap(&src);
    return Error{EIO, "Cannot map a pooled texture"};
  }
  gst_video_frame_copy(&dst, &src);
  gst_video_frame_unmap(&dst);
  gst_video_frame_unmap(&src);
  return {};
}

}  // namespace ef::gst
