// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_trial.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <mutex>

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// Conversions of the first frame by each backend before the timed ones: the
// source is imported or mapped, the destination imported and the shaders
// compiled on the first.
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
  // would alone. The trial's frame is complete on return.
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
    return trial(in, layout, out, params);
  }

 private:
  // The whole trial on the first frame, before it leaves: converted into
  // `out` by the GL backend, and unless what that showed settles it, kWarmup
  // then kTimed more times by each backend, in rounds of one each (whose
  // order alternates, so that neither always finds the frame in caches the
  // other warmed). `out` then holds the kept backend's conversion, so that
  // every frame of the stream is that backend's: the two round and filter
  // differently (by a few levels), and a model's input must not change with
  // the backend that happened to convert it.
  Result<void> trial(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                     const ConvertParams &params) {
    const BackendStats before = gl_->stats();
    if (auto first = timed(*gl_, in, layout, out, params); !first)
      return first.error();
    const ConvertBackend *last = gl_.get();
    if (!learn_imports(before)) {
      std::array<double, kTimed> cpu_us{}, gl_us{};
      for (unsigned round = 0; round < kWarmup + kTimed; ++round) {
        ConvertBackend *order[2] = {gl_.get(), cpu_.get()};
        if (round % 2)
          std::swap(order[0], order[1]);
        for (ConvertBackend *b : order) {
          auto took = timed(*b, in, layout, out, params);
          if (!took)
            return took.error();
          if (round >= kWarmup)
            (b == gl_.get() ? gl_us : cpu_us)[round - kWarmup] = *took;
          last = b;
        }
      }
      settle(settle_trial(machine_, median(cpu_us), median(gl_us), kTimed, kWarmup));
    }
    if (last == running_)
      return {};
    if (auto kept = timed(*running_, in, layout, out, params); !kept)
      return kept.error();
    return {};
  }

  // One conversion of `in` into `out`, complete (a read-back is waited for:
  // its cost is the frame's, and the loser must hold no frame when it
  // goes), and what it took in microseconds.
  static Result<double> timed(ConvertBackend &backend, GstBuffer *in, const FrameLayout &layout,
                              GstBuffer *out, const ConvertParams &params) {
    const auto start = std::chrono::steady_clock::now();
    auto done = backend.convert(in, layout, out, params);
    while (done && backend.in_flight() > 0)
      if (auto completed = backend.complete_oldest(); !completed)
        done = completed.error();
    if (!done)
      return done.error();
    const std::chrono::duration<double, std::micro> took = std::chrono::steady_clock::now() - start;
    return took.count();
  }

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
