#include "journal/hash_vector_rep.h"

#include <rocksdb/comparator.h>
#include <rocksdb/slice.h>
#include <rocksdb/slice_transform.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>  // std::call_once
#include <new>
#include <string_view>
#include <vector>

#include "common/mutex.h"

namespace verdict::journal {
namespace {

using rocksdb::KeyHandle;
using rocksdb::MemTableRep;
using rocksdb::Slice;

// The internal key (user key + 8 bytes of sequence and type) a LookupKey holds. LookupKey is
// not in RocksDB's public headers; in Debian's 7.8.3 (db/lookup_key.h) it starts with three
// pointers: the length-prefixed key, the key after its varint32 length, and its end. The layout
// is checked on every call (the length prefix must decode to the key's size), and a LookupKey
// that does not match is reported as false rather than read.
bool InternalKeyOf(const rocksdb::LookupKey& k, Slice* internal_key) {
  struct Layout {
    const char* start;
    const char* key;
    const char* end;
  };
  Layout layout;
  std::memcpy(&layout, &k, sizeof layout);
  if (layout.start == nullptr || layout.key <= layout.start || layout.end < layout.key + 8 ||
      layout.key - layout.start > 5) {
    return false;
  }
  uint32_t length = 0;
  int shift = 0;
  for (const char* p = layout.start; p < layout.key; ++p, shift += 7) {
    length |= static_cast<uint32_t>(static_cast<unsigned char>(*p) & 0x7f) << shift;
  }
  if (length != static_cast<uint32_t>(layout.end - layout.key)) return false;
  *internal_key = Slice(layout.key, static_cast<size_t>(layout.end - layout.key));
  return true;
}

class HashVectorRep : public MemTableRep {
 public:
  HashVectorRep(const KeyComparator& compare, rocksdb::Allocator* allocator,
                const rocksdb::SliceTransform* prefix_extractor, bool bytewise, bool hashed)
      : MemTableRep(allocator),
        compare_(compare),
        prefix_extractor_(prefix_extractor),
        bytewise_(bytewise),
        hashed_(hashed),
        slots_(hashed ? kInitialSlots : 0) {
    UpdateBytes();
  }

  void Insert(KeyHandle handle) override {
    const char* key = static_cast<const char*>(handle);
    if (!hashed_) {
      WriterLock lock(mu_);
      size_t capacity = entries_.capacity();
      entries_.push_back({key, 0});
      if (entries_.capacity() != capacity) UpdateBytes();
      return;
    }
    Slice prefix = PrefixOfEntry(key);
    uint64_t hash = Hash(prefix);
    WriterLock lock(mu_);
    if ((used_slots_ + 1) * 2 > slots_.size()) Grow();
    Slot& slot = slots_[FindSlot(prefix, hash)];
    if (slot.head == 0) {
      slot.hash = hash;
      slot.key = key;
      ++used_slots_;
    }
    size_t capacity = entries_.capacity();
    entries_.push_back({key, slot.head});
    slot.head = static_cast<uint32_t>(entries_.size());
    if (entries_.capacity() != capacity) UpdateBytes();
  }

  bool Contains(const char* key) const override {
    ReaderLock lock(mu_);
    if (!hashed_) {
      return std::any_of(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return compare_(e.key, key) == 0; });
    }
    Slice prefix = PrefixOfEntry(key);
    const Slot& slot = slots_[FindSlot(prefix, Hash(prefix))];
    for (uint32_t i = slot.head; i != 0; i = entries_[i - 1].next) {
      if (compare_(entries_[i - 1].key, key) == 0) return true;
    }
    return false;
  }

  void MarkReadOnly() override {
    WriterLock lock(mu_);
    read_only_ = true;
  }

  size_t ApproximateMemoryUsage() override { return bytes_.load(std::memory_order_relaxed); }

  Iterator* GetIterator(rocksdb::Arena* arena) override {
    bool read_only = false;
    {
      ReaderLock lock(mu_);
      read_only = read_only_;
    }
    if (read_only) {
      // No more inserts: sort once, and every iterator (the flush's first) shares the order.
      std::call_once(sorted_once_, [this] { sorted_ = SortedEntries(nullptr); });
      return MakeIterator(arena, SortedIterator::Order::kTotal, &sorted_);
    }
    return MakeIterator(arena, SortedIterator::Order::kTotal, nullptr);
  }

  Iterator* GetDynamicPrefixIterator(rocksdb::Arena* arena) override {
    return MakeIterator(arena, SortedIterator::Order::kPrefix, nullptr);
  }

  // A point read: the entries of the key's prefix from the first one at or after the lookup
  // key (same user key, sequence at or below the read's), in order, until `callback` says stop.
  // Overridden because RocksDB's default (7.8) never deletes the iterator it makes.
  void Get(const rocksdb::LookupKey& k, void* callback_args,
           bool (*callback)(void* arg, const char* entry)) override {
    Slice internal_key;
    if (!InternalKeyOf(k, &internal_key)) {
      MemTableRep::Get(k, callback_args, callback);  // (never seen; leaks its iterator)
      return;
    }
    SortedIterator it(this, SortedIterator::Order::kPrefix, nullptr);
    for (it.Seek(internal_key, nullptr); it.Valid() && callback(callback_args, it.key());
         it.Next()) {
    }
  }

 private:
  struct Entry {
    const char* key;  // the memtable entry: length-prefixed internal key, then the value
    uint32_t next;    // 1 + index of the previous entry with the same prefix; 0: none
  };
  struct Slot {
    uint64_t hash = 0;
    const char* key = nullptr;  // any entry with this prefix (to compare prefixes)
    uint32_t head = 0;          // 1 + index of the newest entry with this prefix; 0: empty slot
  };
  static constexpr size_t kInitialSlots = 1 << 12;

  // Positions in a sorted list of entries. Total order: the read-only rep's shared list, or a
  // sorted copy of every entry taken at the first positioning. Prefix order (RocksDB's dynamic
  // prefix iterator, and point lookups): each seek takes the sorted entries of its target's
  // prefix only; SeekToFirst/SeekToLast fall back to every entry.
  class SortedIterator : public Iterator {
   public:
    enum class Order { kTotal, kPrefix };
    SortedIterator(const HashVectorRep* rep, Order order, const std::vector<const char*>* shared)
        : rep_(rep), order_(order), keys_(shared != nullptr ? shared : &own_) {
      pos_ = keys_->size();
    }

    bool Valid() const override { return pos_ < keys_->size(); }
    const char* key() const override { return (*keys_)[pos_]; }
    void Next() override { ++pos_; }
    void Prev() override { pos_ = pos_ == 0 ? keys_->size() : pos_ - 1; }

    void Seek(const Slice& internal_key, const char* /*memtable_key*/) override {
      GatherFor(internal_key);
      auto first = std::lower_bound(
          keys_->begin(), keys_->end(), internal_key,
          [this](const char* entry, const Slice& k) { return rep_->compare_(entry, k) < 0; });
      pos_ = static_cast<size_t>(first - keys_->begin());
    }
    void SeekForPrev(const Slice& internal_key, const char* /*memtable_key*/) override {
      GatherFor(internal_key);
      // The last entry <= internal_key: the one before the first entry > internal_key.
      auto first_after = std::upper_bound(
          keys_->begin(), keys_->end(), internal_key,
          [this](const Slice& k, const char* entry) { return rep_->compare_(entry, k) > 0; });
      pos_ = first_after == keys_->begin() ? keys_->size()
                                           : static_cast<size_t>(first_after - keys_->begin()) - 1;
    }
    void SeekToFirst() override {
      GatherAll();
      pos_ = 0;
    }
    void SeekToLast() override {
      GatherAll();
      pos_ = keys_->empty() ? 0 : keys_->size() - 1;
    }

   private:
    void GatherFor(const Slice& internal_key) {
      if (order_ == Order::kTotal) return GatherAll();
      Slice user_key(internal_key.data(), internal_key.size() - 8);
      Slice prefix = rep_->PrefixOfUserKey(user_key);
      own_ = rep_->SortedEntries(&prefix);
      gathered_all_ = false;
    }
    void GatherAll() {
      if (keys_ != &own_ || gathered_all_) return;
      own_ = rep_->SortedEntries(nullptr);
      gathered_all_ = true;
    }

    const HashVectorRep* rep_;
    const Order order_;
    std::vector<const char*> own_;
    const std::vector<const char*>* keys_;
    bool gathered_all_ = false;
    size_t pos_ = 0;
  };

  // Arena mode (RocksDB's arena-backed iterators): the caller runs only the destructor, and the
  // arena type is not public; so the memory comes from a list this rep frees when it goes,
  // which is after every iterator over it (each holds a reference to the memtable). So each
  // iterator opened on a memtable keeps ~100 bytes until the memtable is flushed. It is not
  // counted in ApproximateMemoryUsage: RocksDB records that when the memtable turns immutable
  // and asserts it never grows after, which an iterator opened meanwhile would break.
  SortedIterator* MakeIterator(rocksdb::Arena* arena, SortedIterator::Order order,
                               const std::vector<const char*>* shared) {
    if (arena == nullptr) return new SortedIterator(this, order, shared);
    MutexLock lock(iterator_memory_mu_);
    iterator_memory_.push_back(std::make_unique<IteratorMemory>());
    return new (iterator_memory_.back()->bytes) SortedIterator(this, order, shared);
  }

  Slice PrefixOfUserKey(const Slice& user_key) const {
    if (prefix_extractor_ == nullptr || !prefix_extractor_->InDomain(user_key)) return user_key;
    return prefix_extractor_->Transform(user_key);
  }
  Slice PrefixOfEntry(const char* key) const { return PrefixOfUserKey(UserKey(key)); }
  static uint64_t Hash(const Slice& prefix) {
    return std::hash<std::string_view>{}(std::string_view(prefix.data(), prefix.size()));
  }

  // The slot holding `prefix`, or the empty slot where it would go.
  size_t FindSlot(const Slice& prefix, uint64_t hash) const REQUIRES_SHARED(mu_) {
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.head == 0) return i;
      if (slot.hash == hash && PrefixOfEntry(slot.key) == prefix) return i;
    }
  }

  // Doubles the table (prefixes are distinct, so reinserting needs no key comparison).
  void Grow() REQUIRES(mu_) {
    std::vector<Slot> grown(slots_.size() * 2);
    const size_t mask = grown.size() - 1;
    for (const Slot& slot : slots_) {
      if (slot.head == 0) continue;
      size_t i = slot.hash & mask;
      while (grown[i].head != 0) i = (i + 1) & mask;
      grown[i] = slot;
    }
    slots_.swap(grown);
    UpdateBytes();
  }

  void UpdateBytes() REQUIRES(mu_) {
    bytes_.store(slots_.capacity() * sizeof(Slot) + entries_.capacity() * sizeof(Entry),
                 std::memory_order_relaxed);
  }

  // Every entry (prefix null) or the entries of one prefix, sorted.
  std::vector<const char*> SortedEntries(const Slice* prefix) const {
    std::vector<const char*> keys;
    {
      ReaderLock lock(mu_);
      if (prefix == nullptr) {
        keys.reserve(entries_.size());
        for (const Entry& e : entries_) keys.push_back(e.key);
      } else if (!hashed_) {
        for (const Entry& e : entries_) {
          if (PrefixOfEntry(e.key) == *prefix) keys.push_back(e.key);
        }
      } else {
        const Slot& slot = slots_[FindSlot(*prefix, Hash(*prefix))];
        for (uint32_t i = slot.head; i != 0; i = entries_[i - 1].next) {
          keys.push_back(entries_[i - 1].key);
        }
      }
    }
    if (bytewise_) {
      SortBytewise(keys);
    } else {
      std::sort(keys.begin(), keys.end(),
                [this](const char* a, const char* b) { return compare_(a, b) < 0; });
    }
    return keys;
  }

  // The internal key order (user key ascending, then sequence and type descending) for a
  // bytewise user comparator, with each entry's key decoded once rather than at every
  // comparison: RocksDB's comparator decodes both varint-prefixed keys and makes two virtual
  // calls per comparison, which made the flush's sorts 7 % of the journal's CPU. Each entry also
  // carries the 8 bytes of its key after the prefix all keys share (a tenant name, say) as one
  // integer, so most comparisons are one integer compare with no memory access.
  static void SortBytewise(std::vector<const char*>& entries) {
    struct Decoded {
      uint64_t head;  // key bytes [shared, shared + 8), zero-padded, big-endian
      std::string_view user_key;
      uint64_t tag;  // sequence << 8 | type
      const char* entry;
    };
    std::vector<Decoded> decoded;
    decoded.reserve(entries.size());
    size_t shared = std::string_view::npos;
    for (const char* entry : entries) {
      Slice internal_key = rocksdb::GetLengthPrefixedSlice(entry);
      uint64_t tag = 0;
      std::memcpy(&tag, internal_key.data() + internal_key.size() - 8, 8);  // little-endian
      std::string_view user_key(internal_key.data(), internal_key.size() - 8);
      if (!decoded.empty()) shared = std::min(shared, CommonPrefix(decoded[0].user_key, user_key));
      decoded.push_back({0, user_key, tag, entry});
    }
    if (shared == std::string_view::npos) shared = 0;
    for (Decoded& d : decoded) d.head = BigEndianHead(d.user_key, shared);
    std::sort(decoded.begin(), decoded.end(), [shared](const Decoded& a, const Decoded& b) {
      if (a.head != b.head) return a.head < b.head;
      if (int c = a.user_key.substr(shared).compare(b.user_key.substr(shared)); c != 0) {
        return c < 0;
      }
      return a.tag > b.tag;
    });
    for (size_t i = 0; i < decoded.size(); ++i) entries[i] = decoded[i].entry;
  }

  static size_t CommonPrefix(std::string_view a, std::string_view b) {
    if (a.size() > b.size()) std::swap(a, b);
    return static_cast<size_t>(std::mismatch(a.begin(), a.end(), b.begin()).first - a.begin());
  }

  // Bytes [from, from + 8) of `key` as a big-endian integer, missing bytes as zeros. For any two
  // keys that share their first `from` bytes, a < b implies head(a) <= head(b); ties go to the
  // full comparison.
  static uint64_t BigEndianHead(std::string_view key, size_t from) {
    uint64_t head = 0;
    for (size_t i = 0; i < 8; ++i) {
      uint8_t byte = from + i < key.size() ? static_cast<uint8_t>(key[from + i]) : 0;
      head = head << 8 | byte;
    }
    return head;
  }

  const KeyComparator& compare_;
  const rocksdb::SliceTransform* prefix_extractor_;
  const bool bytewise_;  // the user comparator is RocksDB's bytewise one: SortBytewise applies
  const bool hashed_;    // false: no hash table; a point read or prefix seek scans every entry
  mutable SharedMutex mu_;
  std::vector<Entry> entries_ GUARDED_BY(mu_);
  // Open addressing, linear probing; size a power of two.
  std::vector<Slot> slots_ GUARDED_BY(mu_);
  size_t used_slots_ GUARDED_BY(mu_) = 0;
  bool read_only_ GUARDED_BY(mu_) = false;
  std::atomic<size_t> bytes_{0};  // slots_ and entries_ (readable without mu_)
  struct IteratorMemory {
    alignas(SortedIterator) std::byte bytes[sizeof(SortedIterator)];
  };
  Mutex iterator_memory_mu_;
  std::vector<std::unique_ptr<IteratorMemory>> iterator_memory_ GUARDED_BY(iterator_memory_mu_);
  std::once_flag sorted_once_;
  std::vector<const char*> sorted_;  // every entry, sorted, once read-only
};

}  // namespace

rocksdb::MemTableRep* HashVectorRepFactory::CreateMemTableRep(
    const rocksdb::MemTableRep::KeyComparator& compare, rocksdb::Allocator* allocator,
    const rocksdb::SliceTransform* prefix_extractor, rocksdb::Logger* /*logger*/) {
  return new HashVectorRep(compare, allocator, prefix_extractor,
                           user_comparator_ == rocksdb::BytewiseComparator(),
                           lookup_ == Lookup::kHashed);
}

}  // namespace verdict::journal
