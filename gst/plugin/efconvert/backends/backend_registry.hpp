// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's backends as data, the way glupload's upload_methods[] is:
// one entry per backend built in, each with its enum value, name and
// blurb, its table (what it makes), the device it needs, which settings it
// honours, its cost model for backend=auto and its factory. The `backend`
// enum, backend-in-use, making a backend, auto and its trial, the caps and
// the pad templates are derived from the entries; nothing else names a
// backend, and a backend that is not built is an absent entry. Each
// backend's folder defines its entry; backend_registry.cpp lists them.
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"
#include "backend_choice.hpp"
#include "backend_settings.hpp"
#include "backend_table.hpp"
#include "common/size_limits.hpp"
#include "device.hpp"
#include "ef/result.hpp"
#include "efconvert/plan/output_spec.hpp"

namespace ef::gst {

// What an entry's hooks have to hand for one element.
struct BackendContext {
  GstElement *element;
  const BackendSettings &settings;
  Devices &devices;
};

struct BackendEntry {
  int value;          // the enum value: stable (scripts set it by number)
  const char *name;   // the enum nick, backend-in-use, ConvertBackend::name()
  const char *label;  // in messages: "the <label> backend"
  const char *blurb;  // the enum value's description
  const char *when;   // what auto gives it, for the `backend` property's blurb
  const BackendTable &(*table)();
  const DeviceType *device;  // the device it needs, or null
  bool device_always;        // for every conversion (else for some outputs only)
  // Whether its outputs in plain memory may leave convert() with their
  // bytes still on their way (readback-depth holds them).
  bool pipelines_readbacks;
  unsigned honours;  // BackendSetting bits
  // "" where this context makes the table's rows marked `compute`, else why
  // not (null: it always does).
  std::string (*compute_missing)(const BackendContext &, const Conversion &);
  // backend=auto: what it finds of its device and the CPU (null: nothing),
  // what a frame costs, and what its first frame of a trial showed (null:
  // nothing to learn), from its counters before and after.
  Facts (*observe)(const BackendContext &, const Machine &);
  Cost (*cost)(const Machine &, const Facts &);
  void (*learn)(const BackendStats &before, const BackendStats &after, Facts &);
  // The largest frame it takes between these memories (null: the CPU
  // path's).
  SizeLimit (*size_limit)(const BackendContext &, FrameMemory in, FrameMemory out);
  // The backend for `c` (which its table has): EINVAL, ENOTSUP, ENODEV
  // with the reason where it cannot run here.
  Result<std::unique_ptr<ConvertBackend>> (*make)(const BackendContext &, const GstVideoInfo &in,
                                                  const OutputSpec &out, const Conversion &c);
};

// The entries built in, in preference order (the CPU's first).
const std::vector<const BackendEntry *> &backend_entries();
// The entry of an enum value, or named so; null if none.
const BackendEntry *backend_entry(int value);
const BackendEntry *backend_named(const char *name);

// The entries `setting` allows: the one asked for, or all under auto.
std::vector<const BackendEntry *> allowed_backends(int setting);

// The devices the entries need, each once.
std::vector<const DeviceType *> backend_device_types();

// The tables of every entry, the CPU's first.
const std::vector<const BackendTable *> &backend_tables();
// The entries whose tables have `c`, by name: "cpu, gl", or "none".
std::string backends_making(const Conversion &c);

// Unions over every table, in preference order (the CPU's rows first),
// each name once. `accepts(row)` picks the rows.
template <typename Pred>
std::vector<std::string> union_of(Pred accepts, bool outputs) {
  std::vector<std::string> names;
  for (const BackendTable *table : backend_tables())
    for (const Production &row : table->rows) {
      if (!accepts(row))
        continue;
      for (const std::string &name : outputs ? row.outputs : row.inputs)
        if (std::find(names.begin(), names.end(), name) == names.end())
          names.push_back(name);
    }
  return names;
}

// Whether some entry `setting` allows reads memory `m`.
bool read_by_allowed(int setting, FrameMemory m);

// The `backend` property's GEnum ("GstEfConvertBackend"): auto and every
// entry.
GType backend_enum_type();
// "cpu, gl, cuda": every entry's name.
std::string backend_names();
// What auto does, from every entry's `when`.
std::string auto_blurb();

}  // namespace ef::gst
