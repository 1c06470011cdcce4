#pragma once
/// \file
/// RequestIdIndex: request id -> dense trial index, an open-addressing table. Request ids are
/// uniformly random (MT19937 bytes), so a lookup is a short linear probe within one or two
/// cache lines; std::unordered_map costs a bucket miss and a node miss per lookup at 10^6
/// trials.

#include <cstdint>
#include <optional>
#include <vector>

#include "hpsearch/searcher/request_id.hpp"

namespace hpsearch {

class RequestIdIndex {
 public:
  /// Index of `id`, if present. O(1) expected.
  [[nodiscard]] std::optional<std::uint32_t> find(const RequestId& id) const;
  /// Adds `id -> index`; returns false (and changes nothing) if `id` is present. O(1)
  /// amortised.
  bool insert(const RequestId& id, std::uint32_t index);
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool contains(const RequestId& id) const { return find(id).has_value(); }

 private:
  struct Slot {
    RequestId id;
    std::uint32_t index = kEmpty;
  };
  static constexpr std::uint32_t kEmpty = 0xffffffffU;

  [[nodiscard]] std::size_t home(const RequestId& id) const {
    return RequestIdHash{}(id) & (slots_.size() - 1);
  }
  void grow();

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace hpsearch
