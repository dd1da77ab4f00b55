// SPDX-License-Identifier: LGPL-2.1-or-later
// Core-library benchmarks: identity derivation, import-cache hits and misses,
// and the slot gate's arm -> wake latency. docs/BENCHMARKS.md states the
// targets and the figures measured; scripts/bench.sh runs this and plots it.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <benchmark/benchmark.h>

#include "ef/identity.hpp"
#include "ef/import_cache.hpp"
#include "bench_threads.hpp"
#include "fd_helpers.hpp"
#include "gate_latency.hpp"

using namespace ef;
using ef::test::make_memfd;
using ef::test::ScopedFd;

namespace {

// Stands in for a GPU texture: making one is not what these benchmarks measure.
struct FakeImport {
  uint64_t serial;
};
using Cache = ImportCache<FakeImport>;

// What an element passes once it has memoized the identity derived when the
// memory first arrived: validation compares two values, retaining takes a ref.
class StoredSource : public ImportSource {
 public:
  explicit StoredSource(BufferIdentity identity)
      : identity_(identity), anchor_(std::make_shared<int>(0)) {}
  Result<BufferIdentity> derive_identity(uint32_t) const override { return identity_; }
  Retainer retain() const override { return Retainer::from_anchor(anchor_); }

 private:
  BufferIdentity identity_;
  std::shared_ptr<const int> anchor_;
};

// Validation as the elements do it: every lookup re-derives the identity
// from the fd with one fstat (rederive_fd_identity), and retaining dups it.
class MemfdSource : public ImportSource {
 public:
  explicit MemfdSource(int fd) : fd_(fd) {}
  Result<BufferIdentity> derive_identity(uint32_t) const override {
    return rederive_fd_identity(fd_, IdentityKind::DmaBuf);
  }
  Retainer retain() const override {
    auto retained = Retainer::dup_fd(fd_);
    return retained ? *retained : Retainer{};
  }

 private:
  int fd_;
};

ImportKey key_for(BufferIdentity identity) {
  ImportKey key;
  key.planes[0] = identity;
  key.layout.width = 1920;
  key.layout.height = 1080;
  key.layout.fourcc = 0x34325241;  // 'AR24'
  key.layout.n_planes = 1;
  key.layout.strides[0] = 1920 * 4;
  return key;
}

// Distinct memfds, the keys naming them and the sources an element would pass.
// Both source kinds are built over real memfds so that the keys hash real
// (st_dev, st_ino) identities.
template <typename Source>
class Buffers {
 public:
  explicit Buffers(size_t count) {
    sources_.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      fds_.push_back(make_memfd("ef-bench", 4096));
      auto identity = identity_from_fd(fds_.back().get());
      if (!identity) {
        error_ = identity.error().message;
        return;
      }
      keys_.push_back(key_for(*identity));
      if constexpr (std::is_same_v<Source, StoredSource>)
        sources_.emplace_back(*identity);
      else
        sources_.emplace_back(fds_.back().get());
    }
  }

  const std::string &error() const { return error_; }
  size_t size() const { return keys_.size(); }
  const ImportKey &key(size_t i) const { return keys_[i]; }
  const Source &source(size_t i) const { return sources_[i]; }

 private:
  std::vector<ScopedFd> fds_;
  std::vector<ImportKey> keys_;
  std::vector<Source> sources_;
  std::string error_;
};

// Acquires `count` buffers round-robin, the order in which a ring pool hands
// them out. With capacity == count every lookup hits, and each one moves the
// least recently used entry to the front; with capacity == count - 1 every
// lookup misses, imports and evicts.
template <typename Source>
void cycle_cache(benchmark::State &state, size_t count, uint32_t capacity) {
  Buffers<Source> buffers(count);
  if (!buffers.error().empty())
    return state.SkipWithError(buffers.error().c_str());
  Cache cache(capacity);
  uint64_t serial = 0;
  // Built once: only a miss calls the importer, so a hit must not pay for making one.
  const Cache::Importer import = [&serial]() -> Result<FakeImport> { return FakeImport{++serial}; };
  for (size_t i = 0; i < count; ++i)
    if (auto warm = cache.acquire(buffers.key(i), buffers.source(i), import); !warm)
      return state.SkipWithError(warm.error().message.c_str());
  const ImportCacheStats before = cache.stats();

  size_t next = 0;
  for (auto _ : state) {
    auto outcome = cache.acquire(buffers.key(next), buffers.source(next), import);
    benchmark::DoNotOptimize(outcome);
    next = next + 1 == count ? 0 : next + 1;
  }

  // A benchmark that silently measured the other path would be worse than none.
  const ImportCacheStats after = cache.stats();
  const bool expect_hits = capacity >= count;
  const uint64_t wanted = expect_hits ? after.hits - before.hits : after.misses - before.misses;
  if (wanted != static_cast<uint64_t>(state.iterations()))
    state.SkipWithError(expect_hits ? "a lookup missed" : "a lookup hit or failed");
  state.counters["entries"] = static_cast<double>(after.entries);
}

void BM_IdentityFromFd(benchmark::State &state) {
  ScopedFd fd = make_memfd("ef-bench", 4096);
  if (auto identity = identity_from_fd(fd.get()); !identity)
    return state.SkipWithError(identity.error().message.c_str());
  for (auto _ : state) {
    auto identity = identity_from_fd(fd.get());
    benchmark::DoNotOptimize(identity);
  }
}

// The per-lookup check: one fstat.
void BM_RederiveFdIdentity(benchmark::State &state) {
  ScopedFd fd = make_memfd("ef-bench", 4096);
  for (auto _ : state) {
    auto identity = rederive_fd_identity(fd.get(), IdentityKind::DmaBuf);
    benchmark::DoNotOptimize(identity);
  }
}

template <typename Source>
void BM_CacheHit(benchmark::State &state) {
  const auto entries = static_cast<uint32_t>(state.range(0));
  cycle_cache<Source>(state, entries, entries);
}

template <typename Source>
void BM_CacheMissImportEvict(benchmark::State &state) {
  constexpr uint32_t kCapacity = 16;
  cycle_cache<Source>(state, kCapacity + 1, kCapacity);
}

// This program never pins itself, so what the process may use now is the whole set.
void BM_GateArmToWake(benchmark::State &state) {
  ef::bench::gate_arm_to_wake_ring(state, ef::bench::process_cpus());
}

BENCHMARK(BM_IdentityFromFd);
BENCHMARK(BM_RederiveFdIdentity);
BENCHMARK_TEMPLATE(BM_CacheHit, StoredSource)->ArgName("entries")->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_CacheHit, MemfdSource)->ArgName("entries")->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_CacheMissImportEvict, StoredSource);
BENCHMARK_TEMPLATE(BM_CacheMissImportEvict, MemfdSource);
BENCHMARK(BM_GateArmToWake)
    ->Iterations(ef::bench::kGateRingWakes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
