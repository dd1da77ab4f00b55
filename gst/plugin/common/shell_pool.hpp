// SPDX-License-Identifier: LGPL-2.1-or-later
// GstEfShellPool: a buffer pool of empty GstBuffers. An element that outputs
// memories it already holds (cached imports) takes a shell, appends refs to
// those memories and pushes it; when downstream drops it, the pool strips
// the memories and metas (releasing e.g. the parent-buffer meta that keeps
// the input alive) and keeps the shell. So the steady state creates no
// GstBuffer per frame.
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_EF_SHELL_POOL (gst_ef_shell_pool_get_type())
G_DECLARE_FINAL_TYPE(GstEfShellPool, gst_ef_shell_pool, GST, EF_SHELL_POOL, GstBufferPool)

GstBufferPool *gst_ef_shell_pool_new(void);
/* Shells the pool had to create: constant in the steady state. */
guint64 gst_ef_shell_pool_get_allocated(GstEfShellPool *pool);

G_END_DECLS
