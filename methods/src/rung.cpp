#include "hpsearch/methods/rung.hpp"

#include <algorithm>

#include "hpsearch/searcher/assert.hpp"

namespace hpsearch {
namespace {
bool item_before_key(const auto& item, const Rung::Key& key) {
  return item.key < key;
}
}  // namespace

Rung::Key Rung::newcomer_key(double metric) const {
  // Later insertions get larger sequences (after equal metrics) or smaller ones (before).
  return Key{metric, policy_ == TiePolicy::kNewcomerAfter ? next_sequence_ : -next_sequence_};
}

std::size_t Rung::block_for(const Key& key) const {
  const auto it = std::lower_bound(block_max_.begin(), block_max_.end(), key);
  return it == block_max_.end() ? block_max_.size() - 1
                                : static_cast<std::size_t>(it - block_max_.begin());
}

std::size_t Rung::items_before(std::size_t block) const {
  std::int64_t sum = 0;
  for (std::size_t i = block; i > 0; i &= i - 1) sum += fenwick_[i];
  return static_cast<std::size_t>(sum);
}

void Rung::add_count(std::size_t block, std::int64_t delta) {
  for (std::size_t i = block + 1; i < fenwick_.size(); i += i & (~i + 1)) fenwick_[i] += delta;
}

void Rung::rebuild_counts() {
  fenwick_.assign(blocks_.size() + 1, 0);
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    add_count(b, static_cast<std::int64_t>(blocks_[b].size()));
  }
}

void Rung::refresh_max(std::size_t block) {
  block_max_[block] = blocks_[block].back().key;
}

std::pair<std::size_t, std::size_t> Rung::locate(std::size_t index) const {
  HPSEARCH_ASSERT(index < size_, "rung index out of range");
  // Fenwick descent: the last block whose prefix count is <= index.
  std::size_t block = 0;
  std::size_t remaining = index;
  std::size_t step = 1;
  while (step * 2 < fenwick_.size()) step *= 2;
  for (; step > 0; step /= 2) {
    const std::size_t next = block + step;
    if (next < fenwick_.size() && static_cast<std::size_t>(fenwick_[next]) <= remaining) {
      block = next;
      remaining -= static_cast<std::size_t>(fenwick_[next]);
    }
  }
  return {block, remaining};  // `block` counts whole blocks skipped = the 0-based block index
}

std::size_t Rung::rank_of(const Key& key) const {
  if (size_ == 0) return 0;
  const std::size_t b = block_for(key);
  const auto& items = blocks_[b];
  const auto within = std::lower_bound(items.begin(), items.end(), key, item_before_key<Item>);
  return items_before(b) + static_cast<std::size_t>(within - items.begin());
}

Rung::Key Rung::insert(std::uint32_t trial, double metric, bool promoted) {
  const Key key = newcomer_key(metric);
  ++next_sequence_;
  const Item item{key, trial, promoted};
  if (blocks_.empty()) {
    blocks_.push_back({item});
    block_max_.push_back(key);
    rebuild_counts();
    ++size_;
    return key;
  }
  const std::size_t b = block_for(key);
  auto& items = blocks_[b];
  items.insert(std::lower_bound(items.begin(), items.end(), key, item_before_key<Item>), item);
  ++size_;
  if (items.size() <= 2 * kBlock) {
    refresh_max(b);
    add_count(b, 1);
    return key;
  }
  // Split a full block in two; the counts are rebuilt (O(blocks), once per kBlock inserts).
  std::vector<Item> upper(items.begin() + static_cast<std::ptrdiff_t>(kBlock), items.end());
  items.resize(kBlock);
  blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(b) + 1, std::move(upper));
  block_max_.insert(block_max_.begin() + static_cast<std::ptrdiff_t>(b) + 1, Key{});
  refresh_max(b);
  refresh_max(b + 1);
  rebuild_counts();
  return key;
}

Rung::Entry Rung::at(std::size_t index) const {
  const auto [block, offset] = locate(index);
  return blocks_[block][offset].entry();
}

void Rung::set_promoted(std::size_t index) {
  const auto [block, offset] = locate(index);
  blocks_[block][offset].promoted = true;
}

std::optional<Rung::Entry> Rung::find(const Key& key) const {
  if (size_ == 0) return std::nullopt;
  const auto& items = blocks_[block_for(key)];
  const auto it = std::lower_bound(items.begin(), items.end(), key, item_before_key<Item>);
  if (it == items.end() || !(it->key == key)) return std::nullopt;
  return it->entry();
}

bool Rung::erase(const Key& key) {
  if (size_ == 0) return false;
  const std::size_t b = block_for(key);
  auto& items = blocks_[b];
  const auto it = std::lower_bound(items.begin(), items.end(), key, item_before_key<Item>);
  if (it == items.end() || !(it->key == key)) return false;
  items.erase(it);
  --size_;
  if (items.empty()) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(b));
    block_max_.erase(block_max_.begin() + static_cast<std::ptrdiff_t>(b));
    rebuild_counts();
  } else {
    refresh_max(b);
    add_count(b, -1);
  }
  return true;
}

std::vector<Rung::Key> Rung::assign(const std::vector<Entry>& ranked) {
  HPSEARCH_ASSERT(size_ == 0, "Rung::assign needs an empty rung");
  std::vector<Key> keys(ranked.size());
  // Each newcomer goes after (or before) its equals, so inserting front to back (or back to
  // front) reproduces the ranked order exactly.
  if (policy_ == TiePolicy::kNewcomerAfter) {
    for (std::size_t i = 0; i < ranked.size(); ++i) {
      keys[i] = insert(ranked[i].trial, ranked[i].metric, ranked[i].promoted);
    }
  } else {
    for (std::size_t i = ranked.size(); i-- > 0;) {
      keys[i] = insert(ranked[i].trial, ranked[i].metric, ranked[i].promoted);
    }
  }
  return keys;
}

void Rung::for_each(const std::function<void(const Key&, const Entry&)>& visit) const {
  for (const auto& items : blocks_) {
    for (const Item& item : items) visit(item.key, item.entry());
  }
}

}  // namespace hpsearch
