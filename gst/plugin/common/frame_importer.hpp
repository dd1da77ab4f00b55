// SPDX-License-Identifier: LGPL-2.1-or-later
// The import step every element takes for a frame, in one place: the plane
// memories are of a kind the import takes, imports are not switched off,
// the frame has a key (its plane identities and layout), and the cache,
// validating the key against the frame itself, serves an earlier import or
// makes one. Anything else is a decline: counted, logged, warned about once
// per reason (DeclineLog), and the caller copies the frame. A validation
// refusal (ESTALE) is about one frame; any other failure of the import is
// the driver's answer for every frame of these caps, so the import switches
// itself off until switch_on() (new caps).
#pragma once

#include <gst/gst.h>

#include <cerrno>
#include <functional>
#include <optional>
#include <string>

#include "common/buffer_source.hpp"
#include "common/decline_log.hpp"
#include "common/frame_layout.hpp"
#include "ef/import_cache.hpp"

namespace ef::gst {

// Whether every plane of `layout` lies in fd memory (GstFdMemory,
// GstDmaBufMemory): what an import by fd takes.
bool planes_in_fd_memory(GstBuffer *buffer, const FrameLayout &layout);

// What a site knows of its import beyond fd memory, asked per frame in the
// step's order.
struct ImportChecks {
  // Whether the import takes every plane's memory; empty: fd memory only.
  std::function<bool(GstBuffer *, const FrameLayout &)> takes;
  // Why the driver takes no import at all, "" where it does; empty: it does.
  std::function<std::string()> no_driver_support;
};

// After a failed import: stop asking until the caps change (a driver), or
// ask again next frame (a mapping, whose failure is about one file).
enum class OnFailure { SwitchOff, KeepOn };

template <typename Import>
class FrameImporter {
 public:
  using Handle = typename ImportCache<Import>::Handle;
  using Make = std::function<Result<Import>()>;

  struct Outcome {
    Handle import;          // null: declined, copy the frame
    bool imported = false;  // made for this frame (a miss), not served from the cache
    std::optional<Decline> declined;
    std::string detail;  // why it was declined
    ImportKey key{};     // the frame's key, where it has one
  };

  FrameImporter(ImportCache<Import> &cache, GstDebugCategory *category, const DeclineTexts &texts,
                OnFailure on_failure = OnFailure::SwitchOff)
      : cache_(cache), log_(category, texts), on_failure_(on_failure) {}

  // The frame's import, or the reason it has none (counted and logged on
  // `element`). `make` imports the frame on a miss.
  Outcome import(GstElement *element, GstBuffer *buffer, const FrameLayout &layout,
                 const Make &make, const ImportChecks &checks = {}) {
    const bool taken =
        checks.takes ? checks.takes(buffer, layout) : planes_in_fd_memory(buffer, layout);
    if (!taken)
      return decline(element, Decline::SystemMemory, log_.texts().system_memory_detail);
    if (off_)
      return decline(element, Decline::ImportFailed, "an earlier import of these caps failed");
    if (checks.no_driver_support)
      if (std::string why = checks.no_driver_support(); !why.empty())
        return decline(element, Decline::NoDriverSupport, why);
    auto key = frame_import_key(buffer, layout);
    if (!key)
      return decline(element, Decline::NoIdentity, key.error().message);
    BufferSource source(buffer, layout, *key);
    auto got = cache_.acquire(*key, source, make);
    if (!got) {
      const std::string &error = got.error().message;
      if (got.error().code == ESTALE) {
        log_.refused(element, error);
        return decline(element, Decline::Refused, error);
      }
      if (on_failure_ == OnFailure::SwitchOff) {
        off_ = true;
        log_.switched_off(element, error);
      }
      return decline(element, Decline::ImportFailed, error);
    }
    return Outcome{got->import, !got->hit, std::nullopt, {}, *key};
  }

  // New caps: the driver is asked again.
  void switch_on() { off_ = false; }
  bool switched_off() const { return off_; }
  DeclineLog &declines() { return log_; }
  const DeclineLog &declines() const { return log_; }

 private:
  Outcome decline(GstElement *element, Decline why, const std::string &detail) {
    log_.decline(element, why, detail);
    return Outcome{nullptr, false, why, detail, {}};
  }

  ImportCache<Import> &cache_;
  DeclineLog log_;
  OnFailure on_failure_;
  bool off_ = false;  // streaming thread
};

}  // namespace ef::gst
