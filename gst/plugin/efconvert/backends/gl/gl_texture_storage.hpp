// SPDX-License-Identifier: LGPL-2.1-or-later
// Textures the GL backend makes for itself: immutable where the context can
// (glTexStorage2D, GL 4.2 / GLES 3.0), since GLES stores compute results
// only into immutable textures; glTexImage2D elsewhere.
#pragma once

#include <gst/gl/gl.h>

namespace ef::gst {

// The context has glTexStorage2D. Any thread.
bool has_texture_storage(GstGLContext *context);

// Storage for the texture bound to GL_TEXTURE_2D, `pixels` (may be nullptr)
// its first contents as `format` / GL_UNSIGNED_BYTE at the current unpack
// alignment. True where it is immutable. GL thread.
bool allocate_texture_2d(GstGLContext *context, guint internal_format, guint format, gint width,
                         gint height, const void *pixels);

}  // namespace ef::gst
