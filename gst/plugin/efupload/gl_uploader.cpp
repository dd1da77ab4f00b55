// SPDX-License-Identifier: LGPL-2.1-or-later
#include "gl_uploader.hpp"

#include "common/frame_fds.hpp"
#include "common/frame_layout.hpp"
#include "common/shell_pool.hpp"
#include "common/output_metas.hpp"

// Messages go to the element's own category.
#define GST_CAT_DEFAULT category_

namespace ef::gst {

namespace {

// Imports take fd memory, as DeclineTexts say by default.
constexpr DeclineTexts kTexts{
    .heading = "Copying frames into textures instead of importing them",
    .import_failed = "the EGL import failed",
    .no_driver_support = "the EGL display cannot import dma-bufs",
};

}  // namespace

GlUploader::GlUploader(GstElement *element, GstDebugCategory *category)
    : element_(element), category_(category), importer_(cache_, category, kTexts) {}

GlUploader::~GlUploader() {
  release_pools();
}

void GlUploader::start() {
  if (shell_pool_)
    return;
  shell_pool_ = gst_ef_shell_pool_new();
  gst_buffer_pool_set_active(shell_pool_, TRUE);
}

void GlUploader::stop() {
  cache_.clear();
  release_pools();
}

void GlUploader::set_caps(const GstVideoInfo &in, uint64_t modifier) {
  in_info_ = in;
  modifier_ = modifier;
  // A new size or stride must re-import; drop everything of the old caps.
  cache_.clear();
  importer_.switch_on();
  uploader_.reset();
}

void GlUploader::new_stream() {
  cache_.clear();
  importer_.switch_on();
  importer_.declines().reset();
}

GstFlowReturn GlUploader::upload(GstGLContext *context, GstBuffer *in, FrameErrors &errors,
                                 GstBuffer **out) {
  auto layout = locate_planes(in, in_info_);
  if (!layout)
    return refuse_frame(element_, errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Invalid input frame: " + layout.error().message);
  if (auto fds = check_frame_fds(in, *layout); !fds)
    return refuse_frame(element_, errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                        "Cannot read the input frame: " + fds.error().message);
  layout->modifier = modifier_;
  *out = import(context, in, *layout);
  return *out ? GST_FLOW_OK : copy(context, in, errors, out);
}

GlUploadStats GlUploader::stats() const {
  return GlUploadStats{imports_.load(), importer_.declines().count(), uploads_.load(),
                       bytes_copied_.load(), cache_.stats()};
}

// The zero-copy path. nullptr when the frame is declined (already counted).
GstBuffer *GlUploader::import(GstGLContext *context, GstBuffer *in, const FrameLayout &layout) {
  ImportChecks checks;
  checks.no_driver_support = [context]() -> std::string {
    return egl_dmabuf_import_available(context) ? "" : "EGL_EXT_image_dma_buf_import is missing";
  };
  auto got = importer_.import(
      element_, in, layout, [&] { return EglImport::create(context, in, layout, in_info_); },
      checks);
  if (!got.import)
    return nullptr;
  if (got.imported) {
    imports_++;
    GST_DEBUG_OBJECT(element_, "imported %s", got.key.describe().c_str());
  }
  GstBuffer *out = nullptr;
  if (gst_buffer_pool_acquire_buffer(shell_pool_, &out, nullptr) != GST_FLOW_OK) {
    importer_.declines().decline(element_, Decline::ImportFailed,
                                 "no output buffer could be taken from the shell pool");
    return nullptr;
  }
  got.import->attach_to(out);
  // The texture shows the input's bytes: keep the input (and so its pool
  // slot) alive until downstream is done with the output.
  put_parent_meta(out, in);
  return out;
}

// The copy path: a pooled texture with the frame's pixels, counted as an
// upload.
GstFlowReturn GlUploader::copy(GstGLContext *context, GstBuffer *in, FrameErrors &errors,
                               GstBuffer **out) {
  if (!uploader_)
    uploader_ = std::make_unique<TextureUploader>(context, in_info_);
  auto buffer = uploader_->acquire();
  if (!buffer) {
    GST_ELEMENT_ERROR(element_, RESOURCE, FAILED, ("%s", buffer.error().message.c_str()),
                      (nullptr));
    return GST_FLOW_ERROR;
  }
  if (auto copied = uploader_->copy(in, *buffer); !copied) {
    gst_buffer_unref(*buffer);
    if (copied.error().code == EINVAL)  // the input frame, not the element
      return refuse_frame(element_, errors, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
                          copied.error().message);
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("%s", copied.error().message.c_str()), (nullptr));
    return GST_FLOW_ERROR;
  }
  uploads_++;
  bytes_copied_ += in_info_.size;
  *out = *buffer;
  return GST_FLOW_OK;
}

void GlUploader::release_pools() {
  uploader_.reset();
  if (shell_pool_) {
    gst_buffer_pool_set_active(shell_pool_, FALSE);
    gst_object_unref(shell_pool_);
    shell_pool_ = nullptr;
  }
}

}  // namespace ef::gst
