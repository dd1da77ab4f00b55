// SPDX-License-Identifier: LGPL-2.1-or-later
#include "ef/import_key.hpp"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "ef/import_cache.hpp"

namespace ef {

Result<void> ImportKey::check() const {
  const ImportLayout &l = layout;
  if (l.n_planes == 0 || l.n_planes > kMaxPlanes)
    return Error{EINVAL, "import has " + std::to_string(l.n_planes) + " planes (1 to " +
                             std::to_string(kMaxPlanes) + " allowed)"};
  if (l.width == 0 || l.height == 0)
    return Error{EINVAL, "import of size " + std::to_string(l.width) + "x" +
                             std::to_string(l.height) +
                             " refused: a zero-size buffer has no bytes"};
  for (uint32_t p = 0; p < l.n_planes; ++p)
    if (l.strides[p] == 0)
      return Error{EINVAL, "plane " + std::to_string(p) + " has stride 0"};
  return {};
}

std::string ImportKey::describe() const {
  std::string s = fourcc_to_string(layout.fourcc) + " " + std::to_string(layout.width) + "x" +
                  std::to_string(layout.height);
  char mod[32];
  std::snprintf(mod, sizeof mod, " mod 0x%" PRIx64, layout.modifier);
  s += mod;
  for (uint32_t p = 0; p < layout.n_planes && p < kMaxPlanes; ++p)
    s += " [" + to_string(planes[p]) + " +" + std::to_string(layout.offsets[p]) + " /" +
         std::to_string(layout.strides[p]) + "]";
  return s;
}

bool operator==(const ImportKey &a, const ImportKey &b) {
  const ImportLayout &l = a.layout, &r = b.layout;
  if (l.width != r.width || l.height != r.height || l.fourcc != r.fourcc ||
      l.modifier != r.modifier || l.n_planes != r.n_planes)
    return false;
  for (uint32_t p = 0; p < l.n_planes && p < kMaxPlanes; ++p)
    if (!(a.planes[p] == b.planes[p]) || l.offsets[p] != r.offsets[p] ||
        l.strides[p] != r.strides[p])
      return false;
  return true;
}

size_t ImportKeyHash::operator()(const ImportKey &key) const noexcept {
  // FNV-1a over the fields; only needs to spread keys across buckets.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  const ImportLayout &l = key.layout;
  for (uint32_t p = 0; p < l.n_planes && p < kMaxPlanes; ++p) {
    mix(key.planes[p].id);
    mix(l.offsets[p]);
    mix(l.strides[p]);
  }
  mix((uint64_t(l.width) << 32) | l.height);
  mix((uint64_t(l.fourcc) << 32) | l.n_planes);
  mix(l.modifier);
  return static_cast<size_t>(h);
}

std::string fourcc_to_string(uint32_t fourcc) {
  std::string s(4, ' ');
  for (int i = 0; i < 4; ++i) {
    char c = static_cast<char>((fourcc >> (8 * i)) & 0xff);
    s[i] = (c >= 32 && c < 127) ? c : '?';
  }
  return s;
}

uint32_t default_cache_capacity() {
  if (const char *env = std::getenv("EF_IMPORT_CACHE_CAPACITY")) {
    char *end = nullptr;
    unsigned long v = std::strtoul(env, &end, 10);
    if (end != env && *end == '\0' && v <= 1u << 20)
      return static_cast<uint32_t>(v);
  }
  return 16;
}

}  // namespace ef
