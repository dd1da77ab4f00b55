// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_select.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "backend_trial.hpp"

#define GST_CAT_DEFAULT gst_ef_convert_debug

namespace ef::gst {

namespace {

// Whether `e` makes `c` here: its table has it, and where only rows marked
// `compute` do, the context computes (`why` says why not).
bool can_make(const BackendEntry &e, const BackendContext &ctx, const Conversion &c,
              std::string &why) {
  if (!makes(e.table(), c))
    return false;
  if (makes(e.table(), c, false) || !e.compute_missing)
    return true;
  why = e.compute_missing(ctx, c);
  return why.empty();
}

Selected chosen(const BackendContext &ctx, std::unique_ptr<ConvertBackend> backend,
                std::string reason) {
  GST_INFO_OBJECT(ctx.element, "backend %s: %s", backend->name(), reason.c_str());
  return {std::move(backend), std::move(reason)};
}

// backend=X: X, or an error naming why not.
Selected asked_for(const BackendContext &ctx, const BackendEntry &e, const GstVideoInfo &in,
                   const OutputSpec &out, const Conversion &c) {
  std::string why;
  if (!can_make(e, ctx, c, why)) {
    const std::string because = why.empty() ? "" : ": " + why;
    GST_ELEMENT_ERROR(
        ctx.element, CORE, NEGOTIATION,
        ("backend=%s cannot convert %s%s", e.name, describe(c).c_str(), because.c_str()),
        ("backends that can: %s", backends_making(c).c_str()));
    return {};
  }
  auto made = e.make(ctx, in, out, c);
  if (made)
    return chosen(ctx, std::move(made).value(), "asked for");
  GST_ELEMENT_ERROR(ctx.element, RESOURCE, FAILED,
                    ("backend=%s is not available: %s", e.name, made.error().message.c_str()),
                    (nullptr));
  return {};
}

struct Contender {
  const BackendEntry *entry;
  Facts facts;
  bool observed = false;
};

std::vector<Candidate> candidates_of(const std::vector<Contender> &contenders, const Machine &m) {
  std::vector<Candidate> candidates;
  for (const Contender &c : contenders)
    candidates.push_back({c.entry->name, c.entry->cost(m, c.facts)});
  return candidates;
}

// backend=auto among the entries that make `c` here: the only one, else
// what their cost models say, timing those they cannot tell apart; one
// that cannot be made gives way to the others.
Selected automatic(const BackendContext &ctx, const GstVideoInfo &in, const OutputSpec &out,
                   const Conversion &c) {
  std::vector<Contender> contenders;
  std::string refusals;  // why entries whose tables have `c` do not make it here
  for (const BackendEntry *e : backend_entries()) {
    std::string why;
    if (can_make(*e, ctx, c, why))
      contenders.push_back({e, {}, false});
    else if (!why.empty())
      refusals += (refusals.empty() ? "" : "; ") + why;
  }
  if (contenders.empty()) {
    const std::string because = refusals.empty() ? "" : ": " + refusals;
    GST_ELEMENT_ERROR(ctx.element, CORE, NEGOTIATION,
                      ("efconvert cannot convert %s%s", describe(c).c_str(), because.c_str()),
                      ("backends built in: %s", backend_names().c_str()));
    return {};
  }
  std::string reason;
  if (contenders.size() == 1)
    reason = std::string("only the ") + contenders[0].entry->label + " backend converts " +
             describe(c) + (refusals.empty() ? "" : " here (" + refusals + ")");
  const Machine machine{c.in_memory, c.out_memory};
  while (!contenders.empty()) {
    std::vector<size_t> picked{0};
    if (contenders.size() > 1) {
      for (Contender &k : contenders)
        if (k.entry->observe && !std::exchange(k.observed, true))
          k.facts = k.entry->observe(ctx, machine);
      const std::vector<Candidate> candidates = candidates_of(contenders, machine);
      Choice choice = choose_backend(candidates);
      if (!choice.timed.empty()) {
        picked = choice.timed;
        reason = (reason.empty() ? "" : reason + "; ") + choice.reason;
      }
    }
    std::vector<TrialEntrant> made;
    for (size_t i : picked) {
      const Contender &k = contenders[i];
      auto backend = k.entry->make(ctx, in, out, c);
      if (backend) {
        made.push_back({k.entry, std::move(backend).value(), k.facts});
        continue;
      }
      reason = std::string("the ") + k.entry->label +
               " backend is not available: " + backend.error().message;
    }
    if (made.size() == 1)
      return chosen(ctx, std::move(made[0].backend), reason);
    if (made.size() > 1)
      return {make_trial_backend(ctx.element, std::move(made), machine, reason), ""};
    // None of those picked could be made: the others are weighed again.
    std::vector<Contender> rest;
    for (size_t i = 0; i < contenders.size(); ++i)
      if (std::find(picked.begin(), picked.end(), i) == picked.end())
        rest.push_back(contenders[i]);
    if (rest.empty()) {
      GST_ELEMENT_ERROR(ctx.element, RESOURCE, FAILED,
                        ("efconvert cannot convert %s: %s", describe(c).c_str(), reason.c_str()),
                        (nullptr));
      return {};
    }
    contenders = std::move(rest);
  }
  return {};
}

}  // namespace

Selected make_backend(const BackendContext &ctx, const GstVideoInfo &in, const OutputSpec &out,
                      GstCaps *incaps, GstCaps *outcaps) {
  const Conversion c = conversion_of(in, memory_of(incaps), out, memory_of(outcaps));
  if (ctx.settings.backend == kAutoBackend)
    return automatic(ctx, in, out, c);
  if (const BackendEntry *e = backend_entry(ctx.settings.backend))
    return asked_for(ctx, *e, in, out, c);
  GST_ELEMENT_ERROR(ctx.element, CORE, NOT_IMPLEMENTED,
                    ("backend %d is not built in", ctx.settings.backend),
                    ("backends built in: %s", backend_names().c_str()));
  return {};
}

SizeLimit size_limit(const BackendContext &ctx, GstCaps *incaps, GstCaps *outcaps) {
  const FrameMemory in = memory_of(incaps), out = memory_of(outcaps);
  std::vector<const BackendEntry *> limited;
  for (const BackendEntry *e : allowed_backends(ctx.settings.backend)) {
    bool moves = false;  // some row of its table reads `in` and writes `out`
    for (const Production &row : e->table().rows)
      moves = moves || ((row.in & memory_bit(in)) && (row.out & memory_bit(out)));
    if (!moves)
      continue;
    if (!e->size_limit)
      return cpu_size_limit();
    limited.push_back(e);
  }
  if (limited.empty())
    return cpu_size_limit();
  SizeLimit widest{0, ""};
  for (const BackendEntry *e : limited)
    if (SizeLimit l = e->size_limit(ctx, in, out); l.max_side > widest.max_side)
      widest = l;
  return widest;
}

}  // namespace ef::gst
