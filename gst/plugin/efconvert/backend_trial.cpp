// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_trial.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// Frames of each backend before the timed ones: a ring's slots are imported
// or mapped on their first use, the shaders compiled on the first frame.
constexpr unsigned kWarmup = 4;
constexpr unsigned kTimed = 4;

double median(std::array<double, kTimed> v) {
  std::sort(v.begin(), v.end());
  return (v[(kTimed - 1) / 2] + v[kTimed / 2]) / 2;
}

class TrialBackend : public ConvertBackend {
 public:
  TrialBackend(GstElement *element, std::unique_ptr<ConvertBackend> cpu,
               std::unique_ptr<ConvertBackend> gl, const Machine &machine, std::string reason)
      : element_(element),
        cpu_(std::move(cpu)),
        gl_(std::move(gl)),
        machine_(machine),
        running_(gl_.get()),
        reason_("trial: " + reason) {}

  const char *name() const override {
    std::lock_guard lock(lock_);
    return running_->name();
  }

  std::string reason() const override {
    std::lock_guard lock(lock_);
    return reason_;
  }

  const char *gl_shader() const override {
    std::lock_guard lock(lock_);
    return running_->gl_shader();
  }

  // The GL backend's: the CPU one writes any plain memory as fast.
  GstAllocator *output_allocator() override { return gl_ ? gl_->output_allocator() : nullptr; }

  BackendStats stats() const override {
    std::lock_guard lock(lock_);
    BackendStats sum = retired_;
    for (const auto &b : {cpu_.get(), gl_.get()})
      if (b)
        sum = sum + b->stats();
    return sum;
  }

  void set_cache_capacity(uint32_t capacity) override {
    std::lock_guard lock(lock_);
    for (const auto &b : {cpu_.get(), gl_.get()})
      if (b)
        b->set_cache_capacity(capacity);
  }

  // Once settled, the backend that runs pipelines its read-backs as it
  // would alone. During the trial every frame is complete on return.
  size_t in_flight() const override { return settled_ ? running_->in_flight() : 0; }
  Result<GstBuffer *> complete_oldest() override { return running_->complete_oldest(); }
  void drop_in_flight() override {
    if (settled_)
      running_->drop_in_flight();
  }
  void sync_stats() override {
    std::lock_guard lock(lock_);
    for (const auto &b : {cpu_.get(), gl_.get()})
      if (b)
        b->sync_stats();
  }

  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    // running_ changes on this (the streaming) thread only.
    if (settled_)
      return running_->convert(in, layout, out, params);
    const bool first_gl = running_ == gl_.get() && done_ == 0;
    const BackendStats before = first_gl ? gl_->stats() : BackendStats{};
    const auto start = std::chrono::steady_clock::now();
    auto done = running_->convert(in, layout, out, params);
    // A read-back left in flight is waited for here: its cost is the
    // frame's, and the loser must hold no frame when it goes.
    while (done && running_->in_flight() > 0)
      if (auto completed = running_->complete_oldest(); !completed)
        done = completed.error();
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    if (!done)
      return done;
    if (first_gl && learn_imports(before))
      return done;
    if (done_ >= kWarmup)
      (running_ == gl_.get() ? gl_us_ : cpu_us_)[done_ - kWarmup] = took.count();
    if (++done_ < kWarmup + kTimed)
      return done;
    if (running_ == gl_.get()) {
      std::lock_guard lock(lock_);
      running_ = cpu_.get();
      done_ = 0;
      return done;
    }
    const Choice c = settle_trial(machine_, median(cpu_us_), median(gl_us_), kTimed, kWarmup);
    settle(c);
    return done;
  }

 private:
  // What the first GL frame copied tells whether the GPU imports each side;
  // true when that alone decides.
  bool learn_imports(const BackendStats &before) {
    const BackendStats after = gl_->stats();
    machine_.src = after.uploads > before.uploads ? Import::No : Import::Yes;
    machine_.dst = after.readbacks > before.readbacks ? Import::No : Import::Yes;
    const Choice c = choose_backend(machine_);
    if (c.pick == Pick::Trial)
      return false;
    settle(c);
    return true;
  }

  void settle(const Choice &c) {
    std::unique_ptr<ConvertBackend> loser;
    {
      std::lock_guard lock(lock_);
      const bool gl = c.pick == Pick::Gl;
      running_ = gl ? gl_.get() : cpu_.get();
      loser = std::move(gl ? cpu_ : gl_);
      retired_ = retired_ + loser->stats();
      reason_ = c.reason;
    }
    settled_ = true;
    GST_INFO_OBJECT(element_, "backend %s: %s", running_->name(), c.reason.c_str());
  }

  GstElement *const element_;
  mutable std::mutex lock_;  // guards the backends' lifetimes, running_, reason_, retired_
  std::unique_ptr<ConvertBackend> cpu_, gl_;
  Machine machine_;
  ConvertBackend *running_;
  std::string reason_;
  BackendStats retired_;  // what the dropped backend counted
  bool settled_ = false;
  unsigned done_ = 0;  // frames the running backend converted in the trial
  std::array<double, kTimed> cpu_us_{}, gl_us_{};
};

}  // namespace

std::unique_ptr<ConvertBackend> make_trial_backend(GstElement *element,
                                                   std::unique_ptr<ConvertBackend> cpu,
                                                   std::unique_ptr<ConvertBackend> gl,
                                                   const Machine &machine, std::string reason) {
  GST_INFO_OBJECT(element, "backend trial: %s", reason.c_str());
  return std::make_unique<TrialBackend>(element, std::move(cpu), std::move(gl), machine,
                                        std::move(reason));
}

}  // namespace ef::gst
