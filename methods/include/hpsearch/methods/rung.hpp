#pragma once
/// \file
/// Rung: the metrics reported at one ASHA rung, ranked in O(log n) with Determined's exact
/// tie rules, shared by the promotion and stopping variants.

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace hpsearch {

/// Where a newcomer goes among equal metrics. Promotion ASHA puts it after them (Determined
/// searches for the first metric strictly greater); stopping ASHA before them (first metric
/// greater or equal).
enum class TiePolicy { kNewcomerAfter, kNewcomerBefore };

/// One rung: entries ordered by metric (smaller is better, already canonical), ties by the
/// policy. Determined inserts into a sorted slice, O(n) per report. Here entries live in sorted
/// blocks of at most 2 x kBlock, found through the blocks' largest keys and counted by a
/// Fenwick tree over block sizes: rank, select, insert and erase cost O(log n) plus a move
/// inside one small block, and stay cache-friendly at 10^6 entries (a node-based tree takes a
/// cache miss per level there).
class Rung {
 public:
  /// A recorded metric. `trial` is the method's dense trial index.
  struct Entry {
    std::uint32_t trial = 0;
    double metric = 0;
    bool promoted = false;
  };
  /// The identity of an entry: metric, then insertion sequence (the tie order).
  struct Key {
    double metric = 0;
    std::int64_t sequence = 0;
    friend bool operator<(const Key& a, const Key& b) {
      return a.metric < b.metric || (a.metric == b.metric && a.sequence < b.sequence);
    }
    friend bool operator==(const Key&, const Key&) = default;
  };

  explicit Rung(TiePolicy policy = TiePolicy::kNewcomerAfter) : policy_(policy) {}

  [[nodiscard]] std::size_t size() const { return size_; }
  /// The key a newcomer with `metric` would get (NaN must already be mapped to +infinity).
  [[nodiscard]] Key newcomer_key(double metric) const;
  /// How many entries rank before `key`.
  [[nodiscard]] std::size_t rank_of(const Key& key) const;
  /// Inserts with the key newcomer_key(metric) gave; returns that key.
  Key insert(std::uint32_t trial, double metric, bool promoted);
  /// The entry at rank `index`. Precondition: index < size().
  [[nodiscard]] Entry at(std::size_t index) const;
  /// Marks the entry at rank `index` promoted.
  void set_promoted(std::size_t index);
  /// The entry with this key, if it is still in the rung.
  [[nodiscard]] std::optional<Entry> find(const Key& key) const;
  /// Rebuilds a rung from entries in rank order (a snapshot); returns their keys, in order.
  /// Precondition: the rung is empty.
  std::vector<Key> assign(const std::vector<Entry>& ranked);
  /// Removes the entry with this key; false if it is not there.
  bool erase(const Key& key);
  /// Visits every entry in rank order.
  void for_each(const std::function<void(const Key&, const Entry&)>& visit) const;

 private:
  // 24 bytes: the key carries the metric.
  struct Item {
    Key key;
    std::uint32_t trial = 0;
    bool promoted = false;
    [[nodiscard]] Entry entry() const { return Entry{trial, key.metric, promoted}; }
  };
  static constexpr std::size_t kBlock = 256;  // blocks hold kBlock..2*kBlock items once split

  // The block that holds (or would hold) `key`: the first whose largest key is not below it.
  [[nodiscard]] std::size_t block_for(const Key& key) const;
  // The block and offset of rank `index`.
  [[nodiscard]] std::pair<std::size_t, std::size_t> locate(std::size_t index) const;
  [[nodiscard]] std::size_t items_before(std::size_t block) const;  // Fenwick prefix sum
  void add_count(std::size_t block, std::int64_t delta);            // Fenwick update
  void rebuild_counts();
  void refresh_max(std::size_t block);

  TiePolicy policy_;
  std::vector<std::vector<Item>> blocks_;
  std::vector<Key> block_max_;         // largest key of each block
  std::vector<std::int64_t> fenwick_;  // block sizes, 1-based Fenwick tree
  std::size_t size_ = 0;
  std::int64_t next_sequence_ = 1;
};

}  // namespace hpsearch
