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

// The first entrant that learns from a frame, else the first.
size_t learner_of(const std::vector<TrialEntrant> &entrants) {
  for (size_t i = 0; i < entrants.size(); ++i)
    if (entrants[i].entry->learn)
      return i;
  return 0;
}

class TrialBackend : public ConvertBackend {
 public:
  TrialBackend(GstElement *element, std::vector<TrialEntrant> entrants, const Machine &machine,
               std::string reason)
      : element_(element),
        entrants_(std::move(entrants)),
        machine_(machine),
        learner_(learner_of(entrants_)),
        running_(entrants_[learner_].backend.get()),
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

  // The first one's that has one (the CPU writes any plain memory as fast).
  GstAllocator *output_allocator() override {
    std::lock_guard lock(lock_);
    for (TrialEntrant &e : entrants_)
      if (e.backend)
        if (GstAllocator *allocator = e.backend->output_allocator())
          return allocator;
    return nullptr;
  }

  BackendStats stats() const override {
    std::lock_guard lock(lock_);
    BackendStats sum = retired_;
    for (const TrialEntrant &e : entrants_)
      if (e.backend)
        sum = sum + e.backend->stats();
    return sum;
  }

  void set_cache_capacity(uint32_t capacity) override {
    std::lock_guard lock(lock_);
    for (TrialEntrant &e : entrants_)
      if (e.backend)
        e.backend->set_cache_capacity(capacity);
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
    for (TrialEntrant &e : entrants_)
      if (e.backend)
        e.backend->sync_stats();
  }

  Result<void> convert(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                       const ConvertParams &params) override {
    // running_ changes on this (the streaming) thread only.
    if (settled_)
      return running_->convert(in, layout, out, params);
    return trial(in, layout, out, params);
  }

 private:
  // What each entrant's model says now.
  std::vector<Candidate> candidates() const {
    std::vector<Candidate> c;
    for (const TrialEntrant &e : entrants_)
      c.push_back({e.entry->name, e.entry->cost(machine_, e.facts)});
    return c;
  }

  // The whole trial on the first frame, before it leaves: converted into
  // `out` by the learner, and unless what that showed settles it, kWarmup
  // then kTimed more times by each entrant still in question, in rounds of
  // one each (whose order turns, so that none always finds the frame in
  // caches another warmed). `out` then holds the kept backend's
  // conversion, so that every frame of the stream is that backend's: they
  // round and filter differently (by a few levels), and a model's input
  // must not change with the backend that happened to convert it.
  Result<void> trial(GstBuffer *in, const FrameLayout &layout, GstBuffer *out,
                     const ConvertParams &params) {
    TrialEntrant &learner = entrants_[learner_];
    const BackendStats before = learner.backend->stats();
    if (auto first = timed(*learner.backend, in, layout, out, params); !first)
      return first.error();
    const ConvertBackend *last = learner.backend.get();
    if (learner.entry->learn)
      learner.entry->learn(before, learner.backend->stats(), learner.facts);
    const std::vector<Candidate> now = candidates();
    const Choice after = choose_backend(now);
    if (after.timed.size() <= 1) {
      // One index, filled rather than copied: GCC 14 reads a copy of a
      // vector known to hold at most one element as a memmove past its
      // bounds (-Warray-bounds, a false alarm that -Werror makes fatal).
      const size_t kept = after.timed.empty() ? learner_ : after.timed.front();
      settle(Choice{std::vector<size_t>(1, kept), after.reason});
    } else {
      const std::vector<size_t> &racing = after.timed;
      std::vector<std::array<double, kTimed>> us(racing.size());
      for (unsigned round = 0; round < kWarmup + kTimed; ++round)
        for (size_t k = 0; k < racing.size(); ++k) {
          const size_t slot = (k + round) % racing.size();
          ConvertBackend &b = *entrants_[racing[slot]].backend;
          auto took = timed(b, in, layout, out, params);
          if (!took)
            return took.error();
          if (round >= kWarmup)
            us[slot][round - kWarmup] = *took;
          last = &b;
        }
      std::vector<double> medians;
      for (const auto &runs : us)
        medians.push_back(median(runs));
      settle(settle_trial(now, racing, medians, kTimed, kWarmup));
    }
    if (last == running_)
      return {};
    if (auto kept = timed(*running_, in, layout, out, params); !kept)
      return kept.error();
    return {};
  }

  // One conversion of `in` into `out`, complete (a read-back is waited for:
  // its cost is the frame's, and the losers must hold no frame when they
  // go), and what it took in microseconds.
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

  // Keeps choice.timed[0]; the others go, what they counted kept.
  void settle(const Choice &c) {
    std::vector<std::unique_ptr<ConvertBackend>> losers;
    {
      std::lock_guard lock(lock_);
      for (size_t i = 0; i < entrants_.size(); ++i) {
        if (i == c.timed[0]) {
          running_ = entrants_[i].backend.get();
          continue;
        }
        if (entrants_[i].backend) {
          retired_ = retired_ + entrants_[i].backend->stats();
          losers.push_back(std::move(entrants_[i].backend));
        }
      }
      reason_ = c.reason;
    }
    settled_ = true;
    GST_INFO_OBJECT(element_, "backend %s: %s", running_->name(), c.reason.c_str());
  }

  GstElement *const element_;
  mutable std::mutex lock_;  // guards the backends' lifetimes, running_, reason_, retired_
  std::vector<TrialEntrant> entrants_;
  const Machine machine_;
  const size_t learner_;
  ConvertBackend *running_;
  std::string reason_;
  BackendStats retired_;  // what the dropped backends counted
  bool settled_ = false;
};

}  // namespace

std::unique_ptr<ConvertBackend> make_trial_backend(GstElement *element,
                                                   std::vector<TrialEntrant> entrants,
                                                   const Machine &machine, std::string reason) {
  GST_INFO_OBJECT(element, "backend trial: %s", reason.c_str());
  return std::make_unique<TrialBackend>(element, std::move(entrants), machine, std::move(reason));
}

}  // namespace ef::gst
