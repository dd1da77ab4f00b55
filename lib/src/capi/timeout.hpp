// SPDX-License-Identifier: LGPL-2.1-or-later
// Timeouts cross the C ABI as uint64_t nanoseconds; std::chrono counts in
// int64_t. A plain conversion turns UINT64_MAX into -1 ns and INT64_MAX + 1
// into the most negative duration: both time out at once. Saturate instead,
// so every value above INT64_MAX means "forever".
#pragma once

#include <chrono>
#include <cstdint>

namespace ef::capi {

inline std::chrono::nanoseconds timeout_from_c(uint64_t timeout_ns) {
  constexpr auto forever = std::chrono::nanoseconds::max();
  return timeout_ns >= static_cast<uint64_t>(forever.count())
             ? forever
             : std::chrono::nanoseconds(timeout_ns);
}

}  // namespace ef::capi
