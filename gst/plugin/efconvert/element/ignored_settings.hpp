// SPDX-License-Identifier: LGPL-2.1-or-later
// Settings only some backends honour (gl-shader, readback-depth,
// gpu-timing and gl-contexts: the GL pass's; n-threads: the CPU pass's),
// set away from their defaults while a backend that ignores them runs
// (backend=cpu, or backend=auto choosing the CPU where GL would render in
// software): said once per run and value as a bus WARNING naming the
// setting and the backend in use. A WARNING, not a log line: the user set
// the value expecting an effect, and an INFO only shows with GST_DEBUG
// set, which is how the setting went unnoticed ("silently ignored"); it
// is no error, since a pipeline written for machines with and without a
// GPU may set them for when GL runs. Which backends honour each setting
// their registry entries say (BackendEntry::honours); kSettings in
// ignored_settings.cpp reads each setting's value: a new setting is a row
// there and a bit in the entries that honour it, a new backend its entry.
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ef::gst {

struct Settings;
class ConvertBackend;

// Each setting `settings` sets away from its default that the backend
// named `backend` (ConvertBackend::name()) ignores, and why.
struct IgnoredSetting {
  std::string setting;  // e.g. "gl-shader=compute"
  std::string why;      // e.g. "only the GL backend has frames read back"
};
std::vector<IgnoredSetting> ignored_settings(const Settings &settings, const char *backend);

// Checks after each frame, cheaply: the table is read only when the
// settings' revision or the backend (a new one, or a trial that settled)
// changed since the last check.
class IgnoredSettingsWatch {
 public:
  void check(GstElement *element, const Settings &settings, const ConvertBackend &backend);
  // The element stopped (forget_sayings): the next check reads the table.
  void forget() { *this = IgnoredSettingsWatch(); }

 private:
  uint64_t revision_ = UINT64_MAX;
  const ConvertBackend *backend_ = nullptr;
  const char *name_ = nullptr;
};

}  // namespace ef::gst
