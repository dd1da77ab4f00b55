// SPDX-License-Identifier: LGPL-2.1-or-later
// The retaining import cache. See docs/ARCHITECTURE.md, "The retaining import
// cache", for why every entry pins its source.
//
// Thread safety: every public member may be called from any thread. One mutex
// guards the map, the LRU list and the statistics; the import callback runs
// under it too, so one key is never imported twice concurrently. Handles are
// shared_ptrs into the entry: an entry evicted or cleared while a frame still
// uses its import stays alive (import and retainer both) until that frame's
// handle is dropped.
#pragma once

#include <cerrno>
#include <cstdint>
#include <functional>
#include <iterator>
#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ef/import_key.hpp"
#include "ef/result.hpp"
#include "ef/retainer.hpp"

namespace ef {

// The object about to be imported, as the cache sees it.
class ImportSource {
 public:
  virtual ~ImportSource() = default;
  // Re-derives the identity of the memory plane `plane` lies in, from the
  // object itself (not from a value remembered alongside the request).
  virtual Result<BufferIdentity> derive_identity(uint32_t plane) const = 0;
  // Pins the source. An empty Retainer means nothing can be pinned: the
  // import is then used once and never cached.
  virtual Retainer retain() const = 0;
};

struct ImportCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t entries = 0;
  uint64_t peak_entries = 0;
  uint64_t evictions = 0;
  uint64_t uncached = 0;  // imports used once: nothing to retain, or capacity 0
  uint64_t refusals = 0;  // validation mismatches and invalid keys
};

// Capacity from EF_IMPORT_CACHE_CAPACITY when set to a number, else 16.
uint32_t default_cache_capacity();

template <typename Import>
class ImportCache {
 public:
  using Handle = std::shared_ptr<const Import>;
  using Importer = std::function<Result<Import>()>;

  struct Outcome {
    Handle import;
    bool hit = false;     // served from the cache
    bool cached = false;  // the import now lives in the cache
  };

  explicit ImportCache(uint32_t capacity = default_cache_capacity()) : capacity_(capacity) {}
  ImportCache(const ImportCache &) = delete;
  ImportCache &operator=(const ImportCache &) = delete;

  // Validates `key` against `source` (refusing with ESTALE on any mismatch),
  // then returns the cached import or makes one with `import`. A failed
  // import leaves the cache as it was; eviction happens only after success.
  // `import` is any callable returning Result<Import> (an Importer too),
  // taken as it is: wrapping a lambda in a std::function would allocate on
  // every lookup, hits included.
  template <typename Make>
  Result<Outcome> acquire(const ImportKey &key, const ImportSource &source, Make &&import) {
    Lru dropped;  // destroyed after the lock is released: see trim()
    std::lock_guard lock(mutex_);
    if (auto valid = validate(key, source); !valid) {
      ++stats_.refusals;
      return valid.error();
    }
    if (auto it = index_.find(key); it != index_.end()) {
      lru_.splice(lru_.begin(), lru_, it->second);
      ++stats_.hits;
      return Outcome{handle_of(*it->second), true, true};
    }
    ++stats_.misses;
    Retainer retainer = source.retain();
    auto made = import();
    if (!made)
      return made.error();
    auto entry = std::make_shared<Entry>(Entry{std::move(retainer), std::move(made).value(), key});
    if (!entry->retainer || capacity_ == 0) {
      ++stats_.uncached;
      return Outcome{handle_of(entry), false, false};
    }
    lru_.push_front(entry);
    index_.emplace(key, lru_.begin());
    trim(capacity_, dropped);
    update_peak();
    return Outcome{handle_of(entry), false, true};
  }

  void clear() {
    Lru dropped;
    std::lock_guard lock(mutex_);
    index_.clear();
    dropped.swap(lru_);
  }

  void set_capacity(uint32_t capacity) {
    Lru dropped;
    std::lock_guard lock(mutex_);
    capacity_ = capacity;
    trim(capacity_, dropped);
  }

  uint32_t capacity() const {
    std::lock_guard lock(mutex_);
    return capacity_;
  }

  ImportCacheStats stats() const {
    std::lock_guard lock(mutex_);
    ImportCacheStats s = stats_;
    s.entries = lru_.size();
    return s;
  }

  // Counts a refusal decided outside acquire() (an importer's own identity
  // check), so that statistics tell every refusal.
  void count_refusal() {
    std::lock_guard lock(mutex_);
    ++stats_.refusals;
  }

 private:
  struct Entry {
    Retainer retainer;  // declared first: destroyed after the import
    Import import;
    ImportKey key{};
  };
  using EntryPtr = std::shared_ptr<Entry>;
  using Lru = std::list<EntryPtr>;

  static Handle handle_of(const EntryPtr &entry) { return Handle(entry, &entry->import); }

  static Result<void> validate(const ImportKey &key, const ImportSource &source) {
    if (auto checked = key.check(); !checked)
      return checked;
    for (uint32_t p = 0; p < key.layout.n_planes; ++p) {
      auto actual = source.derive_identity(p);
      if (!actual)
        return Error{ESTALE, "plane " + std::to_string(p) +
                                 ": identity cannot be re-derived: " + actual.error().message};
      if (*actual != key.planes[p])
        return Error{ESTALE, "plane " + std::to_string(p) + ": key names " +
                                 to_string(key.planes[p]) + " but the source is " +
                                 to_string(*actual)};
    }
    return {};
  }

  // Moves evicted entries into `dropped`, which the caller declares before
  // taking the lock: an import's teardown (GPU calls) and its retainer's
  // release callback then run unlocked, so they can neither stall other
  // lookups nor deadlock by re-entering the cache.
  void trim(uint32_t capacity, Lru &dropped) {
    while (lru_.size() > capacity) {
      index_.erase(lru_.back()->key);
      dropped.splice(dropped.end(), lru_, std::prev(lru_.end()));
      ++stats_.evictions;
    }
  }

  void update_peak() {
    if (lru_.size() > stats_.peak_entries)
      stats_.peak_entries = lru_.size();
  }

  mutable std::mutex mutex_;
  uint32_t capacity_;
  Lru lru_;
  std::unordered_map<ImportKey, typename Lru::iterator, ImportKeyHash> index_;
  ImportCacheStats stats_;
};

}  // namespace ef
