// SPDX-License-Identifier: LGPL-2.1-or-later
// The key of an import: what bytes (one identity per plane) and how they are
// laid out. The layout is part of the key because a pool reconfigured to a new
// size or stride reuses the same memories: without it the GPU would sample the
// new frames at the old pitch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "ef/identity.hpp"
#include "ef/result.hpp"

namespace ef {

inline constexpr size_t kMaxPlanes = 4;
inline constexpr uint64_t kDrmFormatModLinear = 0;

struct ImportLayout {
  uint32_t width = 0;
  uint32_t height = 0;
  uint32_t fourcc = 0;  // DRM fourcc of the whole image
  uint64_t modifier = kDrmFormatModLinear;
  uint32_t n_planes = 0;
  std::array<uint64_t, kMaxPlanes> offsets{};  // inside each plane's memory
  std::array<uint32_t, kMaxPlanes> strides{};
};

struct ImportKey {
  std::array<BufferIdentity, kMaxPlanes> planes{};  // the memory each plane lies in
  ImportLayout layout;

  // EINVAL for a key no importer may accept: no planes, too many, a zero
  // width, height or stride. Zero-size buffers all share one identity, so
  // refusing them here is what makes that sharing safe.
  Result<void> check() const;
  std::string describe() const;

  // Compares the planes in use only, as ImportKeyHash hashes them: what a
  // caller leaves in unused slots is not part of the key.
  friend bool operator==(const ImportKey &a, const ImportKey &b);
};

struct ImportKeyHash {
  size_t operator()(const ImportKey &key) const noexcept;
};

// Converts fourcc 'NV12' and friends to text for messages.
std::string fourcc_to_string(uint32_t fourcc);

}  // namespace ef
