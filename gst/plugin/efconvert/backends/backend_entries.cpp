// SPDX-License-Identifier: LGPL-2.1-or-later
// What efconvert derives from its registry's entries (backend_registry.hpp).
#include <algorithm>
#include <cstring>

#include "backend_registry.hpp"

namespace ef::gst {

const BackendEntry *backend_entry(int value) {
  for (const BackendEntry *e : backend_entries())
    if (e->value == value)
      return e;
  return nullptr;
}

const BackendEntry *backend_named(const char *name) {
  for (const BackendEntry *e : backend_entries())
    if (name && std::strcmp(e->name, name) == 0)
      return e;
  return nullptr;
}

std::vector<const BackendEntry *> allowed_backends(int setting) {
  if (setting == kAutoBackend)
    return backend_entries();
  const BackendEntry *asked = backend_entry(setting);
  return asked ? std::vector<const BackendEntry *>{asked} : std::vector<const BackendEntry *>{};
}

std::vector<const DeviceType *> backend_device_types() {
  std::vector<const DeviceType *> types;
  for (const BackendEntry *e : backend_entries())
    if (e->device && std::find(types.begin(), types.end(), e->device) == types.end())
      types.push_back(e->device);
  return types;
}

const std::vector<const BackendTable *> &backend_tables() {
  static const std::vector<const BackendTable *> tables = [] {
    std::vector<const BackendTable *> t;
    for (const BackendEntry *e : backend_entries())
      t.push_back(&e->table());
    return t;
  }();
  return tables;
}

std::string backends_making(const Conversion &c) {
  std::string names;
  for (const BackendEntry *e : backend_entries())
    if (makes(e->table(), c))
      names += (names.empty() ? "" : ", ") + std::string(e->name);
  return names.empty() ? "none" : names;
}

bool read_by_allowed(int setting, FrameMemory m) {
  for (const BackendEntry *e : allowed_backends(setting))
    for (const Production &row : e->table().rows)
      if (row.in & memory_bit(m))
        return true;
  return false;
}

GType backend_enum_type() {
  static GType type = 0;
  if (g_once_init_enter(&type)) {
    // Static for the type's life, as g_enum_register_static wants.
    // By value, as gst-inspect lists them.
    std::vector<const BackendEntry *> entries = backend_entries();
    std::sort(entries.begin(), entries.end(),
              [](const BackendEntry *a, const BackendEntry *b) { return a->value < b->value; });
    auto *values = new GEnumValue[entries.size() + 2];
    values[0] = {kAutoBackend, "The faster for the caps on this machine", "auto"};
    size_t i = 1;
    for (const BackendEntry *e : entries)
      values[i++] = {e->value, e->blurb, e->name};
    values[i] = {0, nullptr, nullptr};
    g_once_init_leave(&type, g_enum_register_static("GstEfConvertBackend", values));
  }
  return type;
}

std::string backend_names() {
  std::string names;
  for (const BackendEntry *e : backend_entries())
    names += (names.empty() ? "" : ", ") + std::string(e->name);
  return names;
}

std::string auto_blurb() {
  std::string text;
  for (const BackendEntry *e : backend_entries())
    if (e->when && *e->when)
      text += (text.empty() ? "" : "; ") + std::string(e->when);
  return text;
}

}  // namespace ef::gst
