// SPDX-License-Identifier: LGPL-2.1-or-later
#include "backend_choice.hpp"

#include <algorithm>
#include <cstdio>

namespace ef::gst {

namespace {

std::string models(std::span<const Candidate> candidates) {
  std::string text;
  for (const Candidate &c : candidates)
    if (!c.cost.why.empty())
      text += (text.empty() ? "" : "; ") + c.cost.why;
  return text;
}

}  // namespace

Choice choose_backend(std::span<const Candidate> candidates) {
  unsigned best = kUnusable;
  for (const Candidate &c : candidates)
    best = std::min(best, c.cost.level);
  Choice choice;
  choice.reason = models(candidates);
  for (size_t i = 0; i < candidates.size(); ++i)
    if (best != kUnusable && candidates[i].cost.level <= best + 1)
      choice.timed.push_back(i);
  if (choice.timed.size() == 1)
    return choice;
  // Only where the classes of the cheapest do not decide: by time.
  std::string names;
  for (size_t i = 0; i < choice.timed.size(); ++i)
    names += std::string(i == 0                         ? ""
                         : i + 1 == choice.timed.size() ? " and "
                                                        : ", ") +
             candidates[choice.timed[i]].name;
  choice.reason += ": timing " + names;
  return choice;
}

Choice settle_trial(std::span<const Candidate> candidates, const std::vector<size_t> &timed,
                    const std::vector<double> &us, unsigned runs, unsigned warmup) {
  size_t fastest = 0;
  for (size_t i = 1; i < timed.size(); ++i)
    if (us[i] < us[fastest])
      fastest = i;
  char head[120];
  std::snprintf(head, sizeof head,
                "timed the first frame %u times each after %u warm-up conversions: ", runs, warmup);
  std::string times = head;
  for (size_t i = 0; i < timed.size(); ++i) {
    char one[80];
    std::snprintf(one, sizeof one, "%s%s %.0f us", i ? ", " : "", candidates[timed[i]].name, us[i]);
    times += one;
  }
  return {{timed[fastest]}, models(candidates) + "; " + times + " a frame (median)"};
}

}  // namespace ef::gst
