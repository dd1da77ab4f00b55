// SPDX-License-Identifier: LGPL-2.1-or-later
// The read-back path's queue (common/fifo.hpp): first in, first out across
// growth and wrap-around, an item's slot let go when it leaves, and no
// allocation once the queue has held its most items (std::deque, before,
// allocated a block every 32 frames of a queue of two).
#include <memory>
#include <vector>

#include <gst/check/gstcheck.h>

#include "common/fifo.hpp"
#ifdef EF_COUNT_ALLOCATIONS
#include "alloc_count.hpp"
#endif

using ef::gst::Fifo;

// Pushes and pops in an uneven rhythm (the queue grows from 4 to 16 and
// wraps many times): what comes out is what went in, in order, and
// indexing and iteration see the items oldest first.
GST_START_TEST(test_order_across_growth_and_wrap) {
  Fifo<int> q;
  std::vector<int> model;  // the reference queue, oldest first
  size_t model_head = 0;
  int next = 0;
  for (int round = 0; round < 500; ++round) {
    const int pushes = 1 + (round * 7) % 5, pops = (round * 3) % 5;
    for (int i = 0; i < pushes && model.size() - model_head < 12; ++i) {
      q.push_back(next);
      model.push_back(next++);
    }
    for (int i = 0; i < pops && !q.empty(); ++i) {
      fail_unless_equals_int(q.front(), model[model_head]);
      q.pop_front();
      ++model_head;
    }
    fail_unless_equals_int(int(q.size()), int(model.size() - model_head));
    size_t k = 0;
    for (int v : q) {
      fail_unless_equals_int(v, model[model_head + k]);
      fail_unless_equals_int(q[k], v);
      ++k;
    }
    fail_unless_equals_int(int(k), int(q.size()));
  }
  fail_unless(q.capacity() >= 12 && q.capacity() <= 16, "capacity %zu for at most 12 items",
              q.capacity());
}
GST_END_TEST;

// An item that leaves (popped or cleared) is destroyed then, not when its
// slot is reused: a frame's buffers must not outlive its turn.
GST_START_TEST(test_items_let_go_when_they_leave) {
  Fifo<std::shared_ptr<int>> q;
  auto a = std::make_shared<int>(1), b = std::make_shared<int>(2);
  q.push_back(a);
  q.push_back(b);
  fail_unless_equals_int(int(a.use_count()), 2);
  q.pop_front();
  fail_unless_equals_int(int(a.use_count()), 1);
  q.clear();
  fail_unless_equals_int(int(b.use_count()), 1);
  fail_unless(q.empty());
}
GST_END_TEST;

#ifdef EF_COUNT_ALLOCATIONS
// A queue of two, as a read-back of depth 1 keeps: once warm, 10,000
// frames through it allocate nothing.
GST_START_TEST(test_steady_queue_allocates_nothing) {
  Fifo<std::pair<void *, bool>> q;
  q.push_back({nullptr, true});
  q.push_back({nullptr, false});
  q.pop_front();
  int through = 0;  // no Check assertion inside the count: each allocates
  const uint64_t before = ef::bench::thread_allocations();
  for (int i = 0; i < 10000; ++i) {
    q.push_back({&through, (i & 1) != 0});
    through += q.front().second;
    q.pop_front();
  }
  const uint64_t made = ef::bench::thread_allocations() - before;
  fail_unless_equals_uint64(made, 0);
  // Each frame takes out the one before it: the odd ones of 0..9998.
  fail_unless_equals_int(through, 4999);
}
GST_END_TEST;
#endif

static Suite *fifo_suite() {
  Suite *s = suite_create("fifo");
  TCase *tc = tcase_create("general");
  tcase_add_test(tc, test_order_across_growth_and_wrap);
  tcase_add_test(tc, test_items_let_go_when_they_leave);
#ifdef EF_COUNT_ALLOCATIONS
  tcase_add_test(tc, test_steady_queue_allocates_nothing);
#endif
  suite_add_tcase(s, tc);
  return s;
}

GST_CHECK_MAIN(fifo);
