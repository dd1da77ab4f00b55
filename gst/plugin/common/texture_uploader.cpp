// SPDX-License-Identifier: LGPL-2.1-or-later
#include "texture_uploader.hpp"

#include <cerrno>

#include "common/gl_pool.hpp"
#include "common/gst_ptr.hpp"

namespace ef::gst {

TextureUploader::TextureUploader(GstGLContext *context, const GstVideoInfo &info)
    : context_(context), info_(info) {}

TextureUploader::~TextureUploader() {
  if (pool_) {
    gst_buffer_pool_set_active(pool_, FALSE);
    gst_object_unref(pool_);
  }
}

Result<GstBuffer *> TextureUploader::acquire() {
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

Result<void> TextureUploader::copy(GstBuffer *in, GstBuffer *out) {
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
