// SPDX-License-Identifier: LGPL-2.1-or-later
// The retaining import cache: retention (ABA), validation, layout keys, LRU,
// statistics and concurrent use.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "check_main.h"
#include "ef/import_cache.hpp"
#include "fd_helpers.hpp"

using namespace ef;
using ef::test::count_fds_linking;
using ef::test::make_memfd;
using ef::test::ScopedFd;

namespace {

// A test import: which "texture" was made, and from what.
struct FakeImport {
  int serial;
  uint64_t identity;
};

// A source over one fd, re-deriving its identity for every lookup.
class FdSource : public ImportSource {
 public:
  explicit FdSource(int fd, bool retainable = true) : fd_(fd), retainable_(retainable) {}
  Result<BufferIdentity> derive_identity(uint32_t) const override { return identity_from_fd(fd_); }
  Retainer retain() const override {
    if (!retainable_)
      return {};
    auto r = Retainer::dup_fd(fd_);
    return r.ok() ? *r : Retainer{};
  }

 private:
  int fd_;
  bool retainable_;
};

// A source whose identities are given outright.
class FixedSource : public ImportSource {
 public:
  explicit FixedSource(BufferIdentity identity) : identity_(identity) {}
  Result<BufferIdentity> derive_identity(uint32_t) const override { return identity_; }
  Retainer retain() const override { return Retainer::from_anchor(std::make_shared<int>(0)); }

 private:
  BufferIdentity identity_;
};

ImportKey key_for(BufferIdentity identity, uint32_t width = 64, uint32_t height = 48,
                  uint32_t stride = 256) {
  ImportKey key;
  key.planes[0] = identity;
  key.layout.width = width;
  key.layout.height = height;
  key.layout.fourcc = 0x34324241;  // 'AB24'
  key.layout.n_planes = 1;
  key.layout.strides[0] = stride;
  return key;
}

BufferIdentity fixed(uint64_t key) {
  return BufferIdentity::derived(IdentityKind::DmaBuf, key);
}

struct Counter {
  int imports = 0;
  ImportCache<FakeImport>::Importer importer(uint64_t identity) {
    return [this, identity]() -> Result<FakeImport> { return FakeImport{++imports, identity}; };
  }
};

}  // namespace

START_TEST(test_hit_after_miss) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  auto id = fixed(1);
  FixedSource src(id);
  auto first = cache.acquire(key_for(id), src, c.importer(1));
  auto second = cache.acquire(key_for(id), src, c.importer(1));
  ck_assert(first.ok() && second.ok());
  ck_assert(!first->hit && first->cached);
  ck_assert(second->hit);
  ck_assert_int_eq(second->import->serial, 1);
  ck_assert_int_eq(c.imports, 1);
  auto s = cache.stats();
  ck_assert_uint_eq(s.hits, 1);
  ck_assert_uint_eq(s.misses, 1);
  ck_assert_uint_eq(s.entries, 1);
}
END_TEST

// The ABA test: the entry's retainer keeps the memfd's inode alive after the
// caller closed every fd it had, so no new memfd can take that inode and be
// served the old import.
START_TEST(test_retained_entry_pins_inode) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  ScopedFd a = make_memfd("ef-aba-a", 4096);
  auto id_a = identity_from_fd(a.get());
  ck_assert(id_a.ok());
  FdSource src_a(a.get());
  ck_assert(cache.acquire(key_for(*id_a), src_a, c.importer(id_a->id)).ok());
  a.reset();
  // Only the cache's retainer still holds memfd A.
  ck_assert_int_eq(count_fds_linking("/memfd:ef-aba-a (deleted)"), 1);

  for (int i = 0; i < 200; ++i) {
    ScopedFd b = make_memfd("ef-aba-b", 4096);
    auto id_b = identity_from_fd(b.get());
    ck_assert(id_b.ok());
    ck_assert_uint_ne(id_b->id, id_a->id);
    FdSource src_b(b.get());
    auto got = cache.acquire(key_for(*id_b), src_b, c.importer(id_b->id));
    ck_assert(got.ok());
    ck_assert(!got->hit);
    ck_assert_uint_eq(got->import->identity, id_b->id);
  }
  cache.clear();
  ck_assert_int_eq(count_fds_linking("/memfd:ef-aba-a (deleted)"), 0);
}
END_TEST

START_TEST(test_without_retainer_nothing_cached) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  ScopedFd fd = make_memfd("ef-noretain", 4096);
  auto id = identity_from_fd(fd.get());
  FdSource src(fd.get(), /*retainable=*/false);
  auto first = cache.acquire(key_for(*id), src, c.importer(id->id));
  auto second = cache.acquire(key_for(*id), src, c.importer(id->id));
  ck_assert(first.ok() && second.ok());
  ck_assert(!first->cached && !second->cached);
  ck_assert(!second->hit);
  ck_assert_int_eq(c.imports, 2);
  auto s = cache.stats();
  ck_assert_uint_eq(s.uncached, 2);
  ck_assert_uint_eq(s.entries, 0);
  ck_assert_uint_eq(s.hits, 0);
}
END_TEST

START_TEST(test_layout_change_misses) {
  ImportCache<FakeImport> cache(8);
  Counter c;
  auto id = fixed(9);
  FixedSource src(id);
  ck_assert(cache.acquire(key_for(id, 64, 48, 256), src, c.importer(9)).ok());
  // Same memory, reconfigured pool: each of these must re-import.
  ck_assert(!cache.acquire(key_for(id, 64, 48, 320), src, c.importer(9))->hit);  // stride
  ck_assert(!cache.acquire(key_for(id, 80, 48, 320), src, c.importer(9))->hit);  // width
  ck_assert(!cache.acquire(key_for(id, 80, 60, 320), src, c.importer(9))->hit);  // height
  ImportKey k = key_for(id);
  k.layout.offsets[0] = 4096;
  ck_assert(!cache.acquire(k, src, c.importer(9))->hit);  // offset
  k = key_for(id);
  k.layout.fourcc = 0x34325258;                           // 'XR24'
  ck_assert(!cache.acquire(k, src, c.importer(9))->hit);  // format
  k = key_for(id);
  k.layout.modifier = 1;
  ck_assert(!cache.acquire(k, src, c.importer(9))->hit);  // modifier
  ck_assert_int_eq(c.imports, 7);
  ck_assert(cache.acquire(key_for(id, 64, 48, 256), src, c.importer(9))->hit);
}
END_TEST

START_TEST(test_lru_order) {
  ImportCache<FakeImport> cache(3);
  Counter c;
  auto get = [&](uint64_t k) {
    FixedSource src(fixed(k));
    return cache.acquire(key_for(fixed(k)), src, c.importer(k));
  };
  ck_assert(get(1).ok());
  ck_assert(get(2).ok());
  ck_assert(get(3).ok());
  ck_assert(get(1)->hit);   // 1 is now most recent; 2 is least
  ck_assert(!get(4)->hit);  // evicts 2
  ck_assert_uint_eq(cache.stats().evictions, 1);
  ck_assert(get(1)->hit);
  ck_assert(get(3)->hit);
  ck_assert(get(4)->hit);
  ck_assert(!get(2)->hit);  // was evicted; evicts 1 (least recent now)
  ck_assert(!get(1)->hit);
  auto s = cache.stats();
  ck_assert_uint_eq(s.entries, 3);
  ck_assert_uint_eq(s.peak_entries, 3);
  ck_assert_uint_eq(s.evictions, 3);
}
END_TEST

START_TEST(test_validation_mismatch_refused) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  auto claimed = fixed(5);
  FixedSource honest(claimed);
  ck_assert(cache.acquire(key_for(claimed), honest, c.importer(5)).ok());
  // The key says identity 5 but the object about to be imported is other
  // bytes: the cached entry must not be served.
  FixedSource foreign(fixed(6));
  auto r = cache.acquire(key_for(claimed), foreign, c.importer(6));
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, ESTALE);
  ck_assert_ptr_nonnull(strstr(r.error().message.c_str(), "plane 0"));
  ck_assert_uint_eq(cache.stats().refusals, 1);
  ck_assert_uint_eq(cache.stats().hits, 0);
  ck_assert_int_eq(c.imports, 1);
}
END_TEST

START_TEST(test_closed_source_refused) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  ScopedFd fd = make_memfd("ef-closed-src", 4096);
  auto id = identity_from_fd(fd.get());
  int number = fd.get();
  fd.reset();
  FdSource src(number);
  auto r = cache.acquire(key_for(*id), src, c.importer(id->id));
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, ESTALE);
  ck_assert_uint_eq(cache.stats().refusals, 1);
  ck_assert_int_eq(c.imports, 0);
}
END_TEST

START_TEST(test_fd_number_reuse_misses) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  ScopedFd first = make_memfd("ef-reuse", 4096);
  int number = first.get();
  auto id1 = identity_from_fd(number);
  FdSource src1(number);
  ck_assert(cache.acquire(key_for(*id1), src1, c.importer(id1->id)).ok());
  first.reset();
  ScopedFd second = make_memfd("ef-reuse", 4096);
  ck_assert_int_eq(second.get(), number);  // the kernel hands out the lowest free number
  auto id2 = identity_from_fd(number);
  FdSource src2(number);
  auto r = cache.acquire(key_for(*id2), src2, c.importer(id2->id));
  ck_assert(r.ok());
  ck_assert(!r->hit);
  ck_assert_uint_eq(r->import->identity, id2->id);
  // A caller that kept the stale key is refused, never served.
  auto stale = cache.acquire(key_for(*id1), src2, c.importer(id1->id));
  ck_assert(!stale.ok());
}
END_TEST

START_TEST(test_zero_size_refused) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  auto id = fixed(1);
  FixedSource src(id);
  auto r = cache.acquire(key_for(id, 0, 48), src, c.importer(1));
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EINVAL);
  ck_assert(!cache.acquire(key_for(id, 64, 0), src, c.importer(1)).ok());
  ck_assert(!cache.acquire(key_for(id, 64, 48, 0), src, c.importer(1)).ok());
  ImportKey none = key_for(id);
  none.layout.n_planes = 0;
  ck_assert(!cache.acquire(none, src, c.importer(1)).ok());
  ck_assert_int_eq(c.imports, 0);
  ck_assert_uint_eq(cache.stats().refusals, 4);
}
END_TEST

START_TEST(test_failed_import_evicts_nothing) {
  ImportCache<FakeImport> cache(2);
  Counter c;
  FixedSource s1(fixed(1)), s2(fixed(2)), s3(fixed(3));
  ck_assert(cache.acquire(key_for(fixed(1)), s1, c.importer(1)).ok());
  ck_assert(cache.acquire(key_for(fixed(2)), s2, c.importer(2)).ok());
  auto failing = []() -> Result<FakeImport> { return Error{EIO, "driver said no"}; };
  auto r = cache.acquire(key_for(fixed(3)), s3, failing);
  ck_assert(!r.ok());
  ck_assert_int_eq(r.error().code, EIO);
  auto s = cache.stats();
  ck_assert_uint_eq(s.evictions, 0);
  ck_assert_uint_eq(s.entries, 2);
  ck_assert(cache.acquire(key_for(fixed(1)), s1, c.importer(1))->hit);
  ck_assert(cache.acquire(key_for(fixed(2)), s2, c.importer(2))->hit);
}
END_TEST

START_TEST(test_evicted_import_lives_while_used) {
  ImportCache<FakeImport> cache(1);
  Counter c;
  ScopedFd fd = make_memfd("ef-inuse", 4096);
  auto id = identity_from_fd(fd.get());
  FdSource src(fd.get());
  auto held = cache.acquire(key_for(*id), src, c.importer(id->id));
  ck_assert(held.ok());
  fd.reset();
  FixedSource other(fixed(77));
  ck_assert(cache.acquire(key_for(fixed(77)), other, c.importer(77)).ok());  // evicts ours
  ck_assert_uint_eq(cache.stats().evictions, 1);
  // Our frame still uses the import: its retainer must still pin the memfd.
  ck_assert_int_eq(count_fds_linking("/memfd:ef-inuse (deleted)"), 1);
  ck_assert_uint_eq(held->import->identity, id->id);
  held = Error{0, ""};
  ck_assert_int_eq(count_fds_linking("/memfd:ef-inuse (deleted)"), 0);
}
END_TEST

START_TEST(test_capacity_zero_and_shrink) {
  ImportCache<FakeImport> cache(0);
  Counter c;
  FixedSource src(fixed(1));
  ck_assert(!cache.acquire(key_for(fixed(1)), src, c.importer(1))->cached);
  ck_assert(!cache.acquire(key_for(fixed(1)), src, c.importer(1))->hit);
  cache.set_capacity(4);
  for (uint64_t k = 1; k <= 4; ++k) {
    FixedSource s(fixed(k));
    ck_assert(cache.acquire(key_for(fixed(k)), s, c.importer(k)).ok());
  }
  ck_assert_uint_eq(cache.stats().entries, 4);
  cache.set_capacity(2);
  ck_assert_uint_eq(cache.stats().entries, 2);
  ck_assert_uint_eq(cache.stats().peak_entries, 4);
}
END_TEST

START_TEST(test_default_capacity_from_env) {
  unsetenv("EF_IMPORT_CACHE_CAPACITY");
  ck_assert_uint_eq(default_cache_capacity(), 16);
  setenv("EF_IMPORT_CACHE_CAPACITY", "40", 1);
  ck_assert_uint_eq(default_cache_capacity(), 40);
  setenv("EF_IMPORT_CACHE_CAPACITY", "lots", 1);
  ck_assert_uint_eq(default_cache_capacity(), 16);
  unsetenv("EF_IMPORT_CACHE_CAPACITY");
}
END_TEST

START_TEST(test_multi_plane_key) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  ScopedFd y = make_memfd("ef-y", 4096), uv = make_memfd("ef-uv", 2048);
  auto id_y = identity_from_fd(y.get()), id_uv = identity_from_fd(uv.get());
  struct TwoFd : ImportSource {
    int fds[2];
    Result<BufferIdentity> derive_identity(uint32_t p) const override {
      return identity_from_fd(fds[p]);
    }
    Retainer retain() const override { return Retainer::from_anchor(std::make_shared<int>(0)); }
  } src;
  src.fds[0] = y.get();
  src.fds[1] = uv.get();
  ImportKey key = key_for(*id_y);
  key.layout.n_planes = 2;
  key.planes[1] = *id_uv;
  key.layout.strides[1] = 256;
  ck_assert(cache.acquire(key, src, c.importer(1)).ok());
  ck_assert(cache.acquire(key, src, c.importer(1))->hit);
  // The second plane swapped for other bytes: refused.
  src.fds[1] = y.get();
  ck_assert_int_eq(cache.acquire(key, src, c.importer(1)).error().code, ESTALE);
}
END_TEST

// Many threads acquiring overlapping keys: run under TSan in CI.
START_TEST(test_concurrent_acquire) {
  ImportCache<FakeImport> cache(8);
  std::atomic<int> imports{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        uint64_t k = static_cast<uint64_t>((i + t) % 12 + 1);
        FixedSource src(fixed(k));
        auto r = cache.acquire(key_for(fixed(k)), src, [&]() -> Result<FakeImport> {
          return FakeImport{++imports, k};
        });
        if (!r.ok() || r->import->identity != k)
          ck_abort_msg("wrong import served for key %llu", (unsigned long long)k);
        if (i % 500 == 0)
          cache.stats();
      }
    });
  for (auto &th : threads)
    th.join();
  auto s = cache.stats();
  ck_assert_uint_eq(s.hits + s.misses, 8000);
  ck_assert_uint_eq(s.misses, static_cast<uint64_t>(imports.load()));
  ck_assert_uint_le(s.entries, 8);
}
END_TEST

// An import's retainer may call back into the cache (a GstMemory unref that
// reaches an element): eviction and clear() must not hold the lock then.
START_TEST(test_release_may_reenter_cache) {
  ImportCache<FakeImport> cache(1);
  Counter c;
  struct Reentrant : ImportSource {
    ImportCache<FakeImport> *cache;
    BufferIdentity id;
    mutable int released = 0;
    Result<BufferIdentity> derive_identity(uint32_t) const override { return id; }
    Retainer retain() const override {
      return Retainer::from_release(const_cast<Reentrant *>(this), [](void *self) {
        auto *r = static_cast<Reentrant *>(self);
        r->cache->stats();  // would deadlock if called under the cache's lock
        ++r->released;
      });
    }
  };
  Reentrant a, b;
  a.cache = b.cache = &cache;
  a.id = fixed(1);
  b.id = fixed(2);
  ck_assert(cache.acquire(key_for(a.id), a, c.importer(1)).ok());
  ck_assert(cache.acquire(key_for(b.id), b, c.importer(2)).ok());  // evicts a
  ck_assert_int_eq(a.released, 1);
  cache.clear();
  ck_assert_int_eq(b.released, 1);
}
END_TEST

START_TEST(test_unused_planes_not_in_key) {
  ImportCache<FakeImport> cache(4);
  Counter c;
  FixedSource src(fixed(3));
  ImportKey k1 = key_for(fixed(3)), k2 = key_for(fixed(3));
  k2.planes[2] = fixed(99);  // junk past n_planes
  k2.layout.strides[3] = 17;
  ck_assert(k1 == k2);
  ck_assert_uint_eq(ImportKeyHash{}(k1), ImportKeyHash{}(k2));
  ck_assert(cache.acquire(k1, src, c.importer(3)).ok());
  ck_assert(cache.acquire(k2, src, c.importer(3))->hit);
}
END_TEST

static Suite *cache_suite() {
  Suite *s = suite_create("import_cache");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_hit_after_miss);
  tcase_add_test(tc, test_retained_entry_pins_inode);
  tcase_add_test(tc, test_without_retainer_nothing_cached);
  tcase_add_test(tc, test_layout_change_misses);
  tcase_add_test(tc, test_lru_order);
  tcase_add_test(tc, test_validation_mismatch_refused);
  tcase_add_test(tc, test_closed_source_refused);
  tcase_add_test(tc, test_fd_number_reuse_misses);
  tcase_add_test(tc, test_zero_size_refused);
  tcase_add_test(tc, test_failed_import_evicts_nothing);
  tcase_add_test(tc, test_evicted_import_lives_while_used);
  tcase_add_test(tc, test_capacity_zero_and_shrink);
  tcase_add_test(tc, test_default_capacity_from_env);
  tcase_add_test(tc, test_multi_plane_key);
  tcase_add_test(tc, test_concurrent_acquire);
  tcase_add_test(tc, test_release_may_reenter_cache);
  tcase_add_test(tc, test_unused_planes_not_in_key);
  suite_add_tcase(s, tc);
  return s;
}

int main() {
  return ef::test::run_suite(cache_suite());
}
