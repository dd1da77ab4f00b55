// SPDX-License-Identifier: LGPL-2.1-or-later
// efupload's GL output for one frame: the cached import of its fd-backed
// memory, sent in a pooled shell, else a pooled texture with its pixels
// copied in. Owns the import cache, the shell pool and the copy path; the
// element only negotiates and counts frames.
#pragma once

#include <gst/gl/gl.h>
#include <gst/video/video.h>

#include <atomic>
#include <cstdint>
#include <memory>

#include "common/egl_import.hpp"
#include "common/frame_errors.hpp"
#include "common/frame_importer.hpp"
#include "common/texture_uploader.hpp"
#include "ef/import_cache.hpp"

namespace ef::gst {

struct GlUploadStats {
  uint64_t imports = 0, declines = 0, uploads = 0, bytes_copied = 0;
  ImportCacheStats cache;
};

class GlUploader {
 public:
  // `element` posts the messages, in `category`.
  GlUploader(GstElement *element, GstDebugCategory *category);
  ~GlUploader();
  GlUploader(const GlUploader &) = delete;
  GlUploader &operator=(const GlUploader &) = delete;

  // The shell pool, made with the GL context.
  void start();
  // Everything of the GL context goes: imports, shells, textures.
  void stop();
  // New input caps: what was made for the old ones goes, and the driver is
  // asked again.
  void set_caps(const GstVideoInfo &in, uint64_t modifier);
  // A new stream: no import kept, the driver asked again, each decline
  // reason warned about again.
  void new_stream();

  // `in` as GL memory: its import, else an upload. A bad frame is refused
  // through `errors` (max-errors); any other failure is posted as an error.
  GstFlowReturn upload(GstGLContext *context, GstBuffer *in, FrameErrors &errors, GstBuffer **out);

  ImportCache<EglImport> &cache() { return cache_; }
  GlUploadStats stats() const;

 private:
  GstBuffer *import(GstGLContext *context, GstBuffer *in, const FrameLayout &layout);
  GstFlowReturn copy(GstGLContext *context, GstBuffer *in, FrameErrors &errors, GstBuffer **out);
  void release_pools();

  GstElement *element_;
  GstDebugCategory *category_;
  GstVideoInfo in_info_{};
  uint64_t modifier_ = 0;
  ImportCache<EglImport> cache_;
  FrameImporter<EglImport> importer_;
  GstBufferPool *shell_pool_ = nullptr;
  std::unique_ptr<TextureUploader> uploader_;  // the copy path, made on first use
  std::atomic<uint64_t> imports_{0}, uploads_{0}, bytes_copied_{0};
};

}  // namespace ef::gst
