// SPDX-License-Identifier: LGPL-2.1-or-later
#include "egl_import.hpp"

#include <gst/allocators/allocators.h>
#include <gst/gl/egl/gstegl.h>
#include <gst/gl/egl/gsteglimage.h>
#include <gst/gl/egl/gstgldisplay_egl.h>
#include <gst/gl/egl/gstglmemoryegl.h>

#include <cerrno>
#include <string>

#include "common/gst_ptr.hpp"
#include "common/output_metas.hpp"

namespace ef::gst {

EglImport::EglImport(EglImport &&other) noexcept {
  *this = std::move(other);
}

EglImport &EglImport::operator=(EglImport &&other) noexcept {
  std::swap(images_, other.images_);
  std::swap(memories_, other.memories_);
  out_info_ = other.out_info_;
  meta_offsets_ = other.meta_offsets_;
  meta_strides_ = other.meta_strides_;
  return *this;
}

EglImport::~EglImport() {
  // GstGL marshals texture deletion to the GL thread; EGLImages are
  // destroyed when their last ref goes.
  for (GstMemory *mem : memories_)
    gst_memory_unref(mem);
  for (GstEGLImage *image : images_)
    gst_egl_image_unref(image);
}

Result<EglImport> EglImport::create(GstGLContext *context, GstBuffer *buffer,
                                    const FrameLayout &layout, const GstVideoInfo &caps_info) {
  EglImport import;
  GstVideoInfo info = layout.info;
  std::array<GstGLFormat, GST_VIDEO_MAX_PLANES> formats{};
  for (guint p = 0; p < layout.n_planes; ++p)
    if (!gst_is_fd_memory(gst_buffer_peek_memory(buffer, layout.planes[p].memory)))
      return Error{EINVAL, "plane " + std::to_string(p) + " is not in fd memory"};

  // EGL calls run on the GL thread: a streaming thread that touched EGL
  // leaves thread state in libEGL that is torn down racily at exit.
  struct Job {
    GstBuffer *buffer;
    const FrameLayout *layout;
    GstVideoInfo *info;
    std::vector<GstEGLImage *> *images;
    guint failed_plane;
  } job{buffer, &layout, &info, &import.images_, G_MAXUINT};
  gst_gl_context_thread_add(
      context,
      [](GstGLContext *ctx, gpointer data) {
        auto *j = static_cast<Job *>(data);
        for (guint p = 0; p < j->layout->n_planes; ++p) {
          GstMemory *mem = gst_buffer_peek_memory(j->buffer, j->layout->planes[p].memory);
          GstEGLImage *image = gst_egl_image_from_dmabuf(ctx, gst_fd_memory_get_fd(mem), j->info,
                                                         gint(p), j->layout->planes[p].offset);
          if (!image) {
            j->failed_plane = p;
            return;
          }
          j->images->push_back(image);
        }
      },
      &job);
  if (job.failed_plane != G_MAXUINT)
    return Error{ENOTSUP, std::string("EGL refused the dma-buf import of ") +
                              GST_VIDEO_INFO_NAME(&info) + " plane " +
                              std::to_string(job.failed_plane) +
                              " (format, pitch or offset not supported by the driver)"};
  for (guint p = 0; p < layout.n_planes; ++p)
    formats[p] = import.images_[p]->format;

  ObjectPtr<GstAllocator> allocator(gst_allocator_find(GST_GL_MEMORY_EGL_ALLOCATOR_NAME));
  // Padded strides would read as wider textures: GstGL derives a texture's
  // width from the stride it is given.
  GstVideoInfo texture_info = caps_info;
  GstGLVideoAllocationParams *params = gst_gl_video_allocation_params_new_wrapped_gl_handle(
      context, nullptr, &texture_info, -1, nullptr, GST_GL_TEXTURE_TARGET_2D, GstGLFormat(0),
      nullptr, nullptr, nullptr);
  BufferPtr holder(gst_buffer_new());
  gboolean ok = gst_gl_memory_setup_buffer(
      GST_GL_MEMORY_ALLOCATOR(allocator.get()), holder.get(), params, formats.data(),
      reinterpret_cast<gpointer *>(import.images_.data()), guint(import.images_.size()));
  gst_gl_allocation_params_free(reinterpret_cast<GstGLAllocationParams *>(params));
  if (!ok)
    return Error{EIO, "wrapping the EGLImages as GL memory failed"};

  // One memory per plane, each of its plane's rows only. The caps' offsets
  // count rows that are not there (a 4:2:0 luma plane of odd height is laid
  // out as one row taller), and GstGL's own meta copies them: mapped through
  // it, an odd-height chroma plane would start a row late, and a 1-row frame
  // would end past the buffer. The planes start where the memories do.
  gsize offset = 0;
  for (guint i = 0; i < gst_buffer_n_memory(holder.get()); ++i) {
    GstMemory *mem = gst_buffer_peek_memory(holder.get(), i);
    import.memories_.push_back(gst_memory_ref(mem));
    import.meta_offsets_[i] = offset;
    import.meta_strides_[i] = GST_VIDEO_INFO_PLANE_STRIDE(&texture_info, i);
    offset += mem->size;
  }
  import.out_info_ = texture_info;
  return import;
}

void EglImport::attach_to(GstBuffer *out) const {
  for (GstMemory *mem : memories_) {
    GST_MINI_OBJECT_FLAG_SET(mem, GST_GL_BASE_MEMORY_TRANSFER_NEED_DOWNLOAD);
    gst_buffer_append_memory(out, gst_memory_ref(mem));
  }
  put_video_meta(out, out_info_, meta_offsets_.data(), meta_strides_.data());
}

std::array<guint, GST_VIDEO_MAX_PLANES> EglImport::textures() const {
  std::array<guint, GST_VIDEO_MAX_PLANES> ids{};
  for (size_t p = 0; p < memories_.size() && p < ids.size(); ++p)
    ids[p] = gst_gl_memory_get_texture_id(reinterpret_cast<GstGLMemory *>(memories_[p]));
  return ids;
}

bool egl_dmabuf_import_available(GstGLContext *context) {
  if (gst_gl_context_get_gl_platform(context) != GST_GL_PLATFORM_EGL)
    return false;
  return gst_gl_context_check_feature(context, "EGL_EXT_image_dma_buf_import");
}

}  // namespace ef::gst
