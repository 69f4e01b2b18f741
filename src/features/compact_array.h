// CompactArray<T>: a growable array of trivially copyable T in 16 bytes (pointer, 32-bit size
// and capacity), for the many small per-account arrays of AccountState. Owns its heap block;
// a value type; not thread-safe (the account's stripe lock guards it).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace verdict {

template <typename T>
class CompactArray {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  CompactArray() = default;
  CompactArray(const CompactArray& other) { CopyFrom(other); }
  CompactArray(CompactArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0)) {}
  CompactArray& operator=(const CompactArray& other) {
    if (this != &other) {
      clear();
      CopyFrom(other);
    }
    return *this;
  }
  CompactArray& operator=(CompactArray&& other) noexcept {
    if (this != &other) {
      std::free(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  ~CompactArray() { std::free(data_); }

  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](uint32_t i) { return data_[i]; }
  const T& operator[](uint32_t i) const { return data_[i]; }

  // Inserts `value` before position `index` (index <= size()).
  void Insert(uint32_t index, const T& value) {
    Reserve(size_ + 1);
    for (uint32_t i = size_; i > index; --i) data_[i] = data_[i - 1];
    data_[index] = value;
    ++size_;
  }
  void PushBack(const T& value) { Insert(size_, value); }
  void Erase(uint32_t index) {
    for (uint32_t i = index + 1; i < size_; ++i) data_[i - 1] = data_[i];
    --size_;
  }
  // Keeps only the elements for which keep(element) is true, in order.
  template <typename Pred>
  void RetainIf(Pred keep) {
    uint32_t out = 0;
    for (uint32_t i = 0; i < size_; ++i) {
      if (keep(data_[i])) data_[out++] = data_[i];
    }
    size_ = out;
    if (size_ == 0) {
      clear();
    } else if (capacity_ > size_ + 2) {
      Resize(size_ + 1);  // give back what a burst left behind
    }
  }
  void clear() {
    std::free(data_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }
  size_t heap_bytes() const { return capacity_ * sizeof(T); }

 private:
  void Reserve(uint32_t n) {
    if (n <= capacity_) return;
    // Small arrays grow one element at a time to keep slack low; larger ones by 1.5x.
    uint32_t grown = capacity_ < 8 ? capacity_ + 1 : capacity_ + capacity_ / 2;
    if (grown < n) grown = n;
    Resize(grown);
  }
  void Resize(uint32_t capacity) {
    void* p = std::realloc(data_, capacity * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    capacity_ = capacity;
  }
  void CopyFrom(const CompactArray& other) {
    if (other.size_ == 0) return;
    Reserve(other.size_);
    std::memcpy(data_, other.data_, other.size_ * sizeof(T));
    size_ = other.size_;
  }

  T* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
};

}  // namespace verdict
