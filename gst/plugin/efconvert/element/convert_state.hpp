// SPDX-License-Identifier: LGPL-2.1-or-later
// efconvert's state, split the way gst-plugins-rs elements are and each
// part's lock beside it (as libcamerasrc's state is): settings under their
// lock, copied once per frame; the stream (stream.hpp) made whole in
// set_caps and dropped in stop; what lives as long as the element
// (devices, counters, the outputs held) guarding itself. Lock order: `lock`
// before `stream_lock`.
#pragma once

#include <mutex>
#include <optional>

#include "efconvert/backends/backend.hpp"
#include "common/frame_errors.hpp"
#include "common/gst_ptr.hpp"
#include "common/refused_caps.hpp"
#include "convert_counters.hpp"
#include "efconvert/plan/convert_params.hpp"
#include "efconvert/backends/backend_registry.hpp"
#include "efconvert/backends/device.hpp"
#include "held_outputs.hpp"
#include "ignored_settings.hpp"
#include "setting_refusals.hpp"
#include "settings.hpp"
#include "settings_check.hpp"
#include "stream.hpp"

namespace ef::gst {

struct ConvertState {
  // Under `lock`: the settings, and what they are checked against.
  std::mutex lock;
  Settings settings;
  CapsPtr attach;       // attach-tensor: negotiation reads it, so it is no per-frame setting
  StreamShape shape;    // what set_caps negotiated: settings are checked against it when set
  bool remake = false;  // a setting the backend is made with changed: a new one at the next frame
  SettingRefusals refusals;  // values refused: an ERROR at start, or a WARNING while running

  // Written by set_caps and stop under `stream_lock`; the streaming thread
  // reads the stream without it (it is the one that writes it), any other
  // thread under it.
  std::mutex stream_lock;
  std::optional<Stream> stream;
  BackendStats retired;       // what replaced backends counted
  ConvertParams last_plan{};  // the last frame's (the letterbox-* properties)

  Devices devices{backend_device_types()};  // what the backends' entries need (GL's)
  RefusedCaps refused;                      // forgotten by stop: a new run says it again
  FrameErrors errors;
  ConvertStats stats;
  HeldOutputs held;              // streaming thread
  IgnoredSettingsWatch ignored;  // streaming thread
};

}  // namespace ef::gst
