// SPDX-License-Identifier: LGPL-2.1-or-later
// Frames for element tests: memfd-backed and system-memory video buffers with
// known contents, and exact comparisons of what comes out.
#pragma once

#include <gst/allocators/allocators.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <string>

namespace ef::test {

// A deterministic byte for (seed, plane, row, byte-in-row): every frame of a
// test has other bytes in every row, so a stale or foreign frame shows.
inline uint8_t pattern_byte(uint32_t seed, guint plane, guint row, guint col) {
  return uint8_t(seed * 131u + plane * 71u + row * 7u + col * 3u + (row * col) % 13u);
}

// Writes the pattern into every visible byte of `frame`.
void fill_frame(GstVideoFrame *frame, uint32_t seed);
// Empty when every visible byte of `frame` holds the pattern, else where not.
std::string check_frame(GstVideoFrame *frame, uint32_t seed);
// The same on a whole buffer laid out as `info` (GstVideoMeta honoured).
std::string check_buffer(GstBuffer *buffer, const GstVideoInfo &info, uint32_t seed);

// Every visible byte of `out` (laid out as `info`, 1:1 with the source)
// against the RGBA frame of `seed`'s pattern that efconvert converted:
// empty when all are right, else the first wrong one. GRAY8 as the BT.601
// luma of the source's R'G'B', within 1.
std::string check_from_rgba(GstBuffer *out, const GstVideoInfo &info, uint32_t seed);

// PSNR in dB over the visible bytes of two frames of one format and size
// (strides may differ); infinity when they are equal.
double frame_psnr(GstVideoFrame *a, GstVideoFrame *b);

// A memfd of `size` bytes; -1 on failure.
int make_memfd(const char *name, gsize size);

// `buffer` with a GstVideoMeta of `info`'s strides and offsets.
GstBuffer *with_meta(GstBuffer *buffer, const GstVideoInfo &info);
// One GstFdMemory of info.size bytes over `fd`, with its video meta; unfilled.
GstBuffer *fd_buffer(int fd, const GstVideoInfo &info, GstFdMemoryFlags flags);

// A buffer of one GstFdMemory over `fd` (not closed by the memory) with a
// GstVideoMeta for `info` (strides and offsets may be padded), filled with
// the pattern of `seed`.
GstBuffer *fd_frame(int fd, const GstVideoInfo &info, uint32_t seed);
// A fresh memfd owned by the returned buffer's memory.
GstBuffer *memfd_frame(const GstVideoInfo &info, uint32_t seed);
// Writes the pattern of `seed`, laid out as `info`, into the fd.
void write_frame_to_fd(int fd, const GstVideoInfo &info, uint32_t seed);
// Plain system memory.
GstBuffer *system_frame(const GstVideoInfo &info, uint32_t seed);
// An RGBA-family frame of one colour (0xRRGGBBAA) in system memory.
GstBuffer *flat_rgba(const GstVideoInfo &info, guint32 rgba);
// One fd memory of info.size bytes over the read end of a new pipe, whose
// fds the caller closes: fd memory that names no buffer and cannot be mapped.
// nullptr when no pipe can be made.
GstBuffer *pipe_frame(const GstVideoInfo &info, int fds[2]);

// Files that are no buffer, as a frame's fd: /dev/null (a character device:
// every frame in it has the same inode), a regular file on disk that holds
// a real frame (the pattern of the seed), and a pipe's read end.
enum class NotABuffer { DevNull, DiskFile, Pipe };
inline constexpr NotABuffer kNotABuffer[] = {NotABuffer::DevNull, NotABuffer::DiskFile,
                                             NotABuffer::Pipe};
struct NotABufferFrame {
  GstBuffer *buffer = nullptr;  // one GstFdMemory of info.size bytes, owning the fd; video meta
  std::string says;             // what a refusal must say: "plane 0's fd N is a pipe (pipe:["
};
// The disk file is made in the working folder (a build folder), unlinked.
NotABufferFrame not_a_buffer_frame(NotABuffer kind, const GstVideoInfo &info, uint32_t seed);

// Caps of `info` in system memory (features == nullptr) or with a feature;
// memory:DMABuf caps in the DMA_DRM form on GStreamer 1.24 and later.
GstCaps *caps_for(const GstVideoInfo &info, const char *feature = nullptr);
// The video info of `caps` in either form: DMA_DRM caps (1.24 and later)
// describe their layout by drm-format, which gst_video_info_from_caps()
// reads as the opaque format DMA_DRM.
bool video_info_of(GstCaps *caps, GstVideoInfo *info);

// Whether a GstGLContext can be made here, and whether it imports dma-bufs;
// `why` says what is missing. In gl_probes.cpp: GL builds only.
bool gl_available(std::string &why);
bool egl_dmabuf_import_available(std::string &why);
bool gl_compute_available(std::string &why);
// GL_RENDERER of a context made here; "" without GL.
std::string gl_renderer();

}  // namespace ef::test
