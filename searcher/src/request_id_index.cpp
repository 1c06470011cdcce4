#include "hpsearch/searcher/request_id_index.hpp"

#include "hpsearch/searcher/assert.hpp"

namespace hpsearch {

std::optional<std::uint32_t> RequestIdIndex::find(const RequestId& id) const {
  if (slots_.empty()) return std::nullopt;
  for (std::size_t at = home(id);; at = (at + 1) & (slots_.size() - 1)) {
    const Slot& slot = slots_[at];
    if (slot.index == kEmpty) return std::nullopt;
    if (slot.id == id) return slot.index;
  }
}

bool RequestIdIndex::insert(const RequestId& id, std::uint32_t index) {
  HPSEARCH_ASSERT(index != kEmpty, "trial index out of range");
  // Keep the load at or below 1/2 so probes stay short.
  if (2 * (size_ + 1) > slots_.size()) grow();
  for (std::size_t at = home(id);; at = (at + 1) & (slots_.size() - 1)) {
    Slot& slot = slots_[at];
    if (slot.index == kEmpty) {
      slot = Slot{id, index};
      ++size_;
      return true;
    }
    if (slot.id == id) return false;
  }
}

void RequestIdIndex::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 16 : 2 * old.size(), Slot{});
  size_ = 0;
  for (const Slot& slot : old) {
    if (slot.index != kEmpty) insert(slot.id, slot.index);
  }
}

}  // namespace hpsearch
