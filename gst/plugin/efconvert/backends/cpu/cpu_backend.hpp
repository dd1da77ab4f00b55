// SPDX-License-Identifier: LGPL-2.1-or-later
// The CPU backend: the fused libyuv pass (cpu_converter) on the streaming
// thread and the shared helper threads (cpu_pool).
#pragma once

#include <gst/video/video.h>

#include <memory>

#include "efconvert/backends/backend.hpp"
#include "efconvert/backends/backend_table.hpp"

namespace ef::gst {

// What it makes (cpu_table.cpp).
const BackendTable &cpu_table();

// Made for one conversion its table has (cpu_table.cpp). n_threads: the
// threads that convert a frame, the caller's included (0: one per online
// CPU).
std::unique_ptr<ConvertBackend> make_cpu_backend(const GstVideoInfo &in, const OutputSpec &out,
                                                 uint32_t cache_capacity, unsigned n_threads);

}  // namespace ef::gst
