// SPDX-License-Identifier: LGPL-2.1-or-later
// The one place that knows how dma-buf caps are spelt. Since GStreamer 1.24,
// caps with the memory:DMABuf feature say `format=DMA_DRM` and
// `drm-format="FOURCC[:0xMODIFIER]"` (no modifier when LINEAR), and the stock
// elements (glupload, gldownload, v4l2src, VA, waylandsink) take and make only
// that form. GStreamer 1.22 knows only `format=NV12` with the feature. Every
// element calls these helpers, so the version check lives here only.
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ef/result.hpp"

#if GST_CHECK_VERSION(1, 24, 0)
#define EF_HAVE_DMA_DRM 1
#define EF_DMA_DRM_STRUCTURE(features)                                                  \
  "video/x-raw(" features "), format = (string) DMA_DRM, width = " GST_VIDEO_SIZE_RANGE \
  ", height = " GST_VIDEO_SIZE_RANGE ", framerate = " GST_VIDEO_FPS_RANGE
// What an element takes as dma-bufs: the DMA_DRM form, and the 1.22 form
// still, for producers written against it (formats without a DRM fourcc,
// such as GRAY8, have no other way in).
#define EF_DMABUF_CAPS_WITH_FEATURES(features, formats) \
  EF_DMA_DRM_STRUCTURE(features) ";" GST_VIDEO_CAPS_MAKE_WITH_FEATURES(features, formats)
// What an element makes as dma-bufs: the DMA_DRM form only.
#define EF_DMABUF_OUT_CAPS_WITH_FEATURES(features, formats) EF_DMA_DRM_STRUCTURE(features)
#else
#define EF_DMABUF_CAPS_WITH_FEATURES(features, formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(features, formats)
#define EF_DMABUF_OUT_CAPS_WITH_FEATURES(features, formats) \
  GST_VIDEO_CAPS_MAKE_WITH_FEATURES(features, formats)
#endif
#define EF_DMABUF_CAPS(formats) \
  EF_DMABUF_CAPS_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_DMABUF, formats)
#define EF_DMABUF_OUT_CAPS(formats) \
  EF_DMABUF_OUT_CAPS_WITH_FEATURES(GST_CAPS_FEATURE_MEMORY_DMABUF, formats)

namespace ef::gst {

struct DrmFormat {
  uint32_t fourcc = 0;
  uint64_t modifier = 0;
  bool operator==(const DrmFormat &) const = default;
};

// "AB24", "NV12:0x0100000000000002".
std::string drm_format_to_string(const DrmFormat &format);

// The dma-buf layouts an importer takes: LINEAR for each of `formats` (a
// caps format field such as "{ NV12, RGBA }") that has a DRM fourcc, then
// `extra` (modifiers a driver reports), in that order.
class DrmSupport {
 public:
  explicit DrmSupport(const char *formats, std::vector<DrmFormat> extra = {});
  bool takes(const DrmFormat &format) const;
  const std::vector<DrmFormat> &formats() const { return formats_; }
  // "AB24, XB24, NV12, ..." for messages.
  std::string describe() const;

 private:
  std::vector<DrmFormat> formats_;
};

// Whether `s` is in the DMA_DRM form (never on 1.22).
bool is_dma_drm_structure(const GstStructure *s);

// `s` as dma-buf caps with `features` (taken): on 1.24+ the DMA_DRM form
// whose drm-format lists what `support` takes of `s`'s formats (or of its
// drm-format list), then, if `with_legacy` and `s` names plain formats, `s`
// itself; on 1.22 `s` itself. Empty caps when nothing is left.
GstCaps *dmabuf_caps_of(const GstStructure *s, GstCapsFeatures *features, const DrmSupport &support,
                        bool with_legacy);

// `s` with plain GStreamer formats: a DMA_DRM structure's drm-formats that
// `support` takes, as video formats; any other structure copied, without a
// drm-format field. nullptr when nothing is left.
GstStructure *plain_structure_of(const GstStructure *s, const DrmSupport &support);

// Fixed video caps in either form.
struct VideoCaps {
  GstVideoInfo info{};  // the frame's real format (never GST_VIDEO_FORMAT_DMA_DRM)
  DrmFormat drm{};      // fourcc 0 where the format has none
  bool dma_drm = false;
};
Result<VideoCaps> parse_video_caps(GstCaps *caps);

// What set_caps needs of its caps: both parsed, and each DMA_DRM layout
// one its side takes (`in_support` / `out_support`; nullptr: not checked).
// Otherwise an error on the bus naming the layout, and nullopt: a tiled or
// compressed layout is never read as if it were LINEAR.
struct NegotiatedCaps {
  VideoCaps in, out;
};
std::optional<NegotiatedCaps> negotiated_caps(GstElement *element, GstCaps *incaps,
                                              GstCaps *outcaps, const DrmSupport *in_support,
                                              const DrmSupport *out_support);

// Caps a GstVideoBufferPool can parse for frames of `parsed` (a new ref):
// `caps` themselves, or for DMA_DRM caps the plain caps of the same layout.
GstCaps *pool_caps(GstCaps *caps, const VideoCaps &parsed);

// Where `caps` are DMA_DRM caps of a layout `support` does not take: posts
// a warning naming the layout and what is taken (once per element and
// layout) and returns true. Called from accept_caps, so the refusal that
// follows is not a bare "not-negotiated".
bool refuse_untaken_drm_format(GstElement *element, GstCaps *caps, const DrmSupport &support);

// After a sink pad's CAPS query was answered: where upstream asked about
// one DMA_DRM layout (the query's filter, fixed) and the answer is empty,
// the warning above. A source negotiates by caps query and never sends caps
// the query refused, so this is where such a refusal can be named.
void name_untaken_caps_query(GstElement *element, GstQuery *query, const DrmSupport &support);

// An importer's accept_caps and query: `parent`'s answer, with an untaken
// layout named as above on the sink pad.
gboolean accept_caps_naming_layout(GstBaseTransform *trans, GstBaseTransformClass *parent,
                                   GstPadDirection direction, GstCaps *caps,
                                   const DrmSupport &support);
gboolean query_naming_layout(GstBaseTransform *trans, GstBaseTransformClass *parent,
                             GstPadDirection direction, GstQuery *query, const DrmSupport &support);

}  // namespace ef::gst
