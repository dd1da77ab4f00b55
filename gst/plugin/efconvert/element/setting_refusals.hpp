// SPDX-License-Identifier: LGPL-2.1-or-later
// A value efconvert refuses for one of its settings (a std of 0, a crop
// without pixels, attach-tensor caps it makes no tensor of), said on the
// bus so that a pipeline never runs quietly on the value the user did not
// ask for:
// - set before the element starts (gst-launch-1.0 sets every property then,
//   often before there is a bus), the refusal is kept and start fails with
//   an ERROR naming the property, the value and what it takes;
// - set once it runs (PAUSED, PLAYING), the old value goes on and a WARNING
//   says so.
// A good value of the same property later replaces its kept refusal. The
// property keeps its value either way, so that what reads back is what runs.
#pragma once

#include <gst/gst.h>

#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ef::gst {

class SettingRefusals {
 public:
  // `pspec` refused `value` because of `why` ("std 0 of channel 0 is not
  // above 0"); `takes` says what it takes. Posts the WARNING while running.
  void refuse(GstElement *element, GParamSpec *pspec, const GValue *value, const std::string &why,
              const std::string &takes);
  // `pspec` took a value: a refusal kept for it is gone.
  void accepted(GParamSpec *pspec);

  // start: false, with an ERROR naming every refusal kept, where any is;
  // else the element runs and later refusals are warnings.
  bool start(GstElement *element);
  void stop();

 private:
  std::mutex lock_;
  bool running_ = false;
  std::vector<std::pair<std::string, std::string>> kept_;  // property, what was refused
};

}  // namespace ef::gst
