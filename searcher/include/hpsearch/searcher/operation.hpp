#pragma once
/// \file
/// Operations: what the searcher asks of whoever runs the trials (spec section 2.1).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <variant>
#include <vector>

#include "hpsearch/searcher/request_id.hpp"

namespace hpsearch {

/// Why a metric-driven method continued or stopped a trial, for users who ask (`--explain`).
/// Decisions never depend on it.
struct Explanation {
  enum class Reason {
    kPromoted,     ///< ranked within the rung's top and sent to the next rung
    kContinued,    ///< stopping ASHA: ranked within the top, keeps training
    kStopped,      ///< stopping ASHA: ranked below the top
    kNotPromoted,  ///< promotion ASHA: its rung is settled and it was not promoted
    kFinished,     ///< reached the top rung (max_length)
    kInvalidHyperparameters,
  };
  Reason reason = Reason::kFinished;
  std::uint64_t rung = 0;       ///< 0-based rung index
  std::uint64_t length = 0;     ///< the rung's length
  std::uint64_t rank = 0;       ///< 1-based rank in the rung (0 if not ranked)
  std::uint64_t rung_size = 0;  ///< trials ranked in the rung at the decision
  std::uint64_t cutoff = 0;     ///< how many the rung promotes (or continues) at that size
  double metric = 0;            ///< the metric as reported
  friend bool operator==(const Explanation&, const Explanation&) = default;
};

/// `{"reason": "promoted", "rung": 0, ..., "text": "ranked 2 of 9 at rung 0 (length 1000); the top
/// 3 are promoted"}`.
[[nodiscard]] nlohmann::json explanation_to_json(const Explanation& explanation);

/// Create one trial with these hyperparameters and this seed; with `checkpoint`, the trial
/// starts from the latest checkpoint of that (parent) trial instead of from scratch (PBT's
/// clones, spec 2.1 and 3.10).
struct Create {
  RequestId request_id;
  std::uint32_t trial_seed = 0;
  nlohmann::json hparams = nlohmann::json::object();
  /// The parent trial whose latest checkpoint the new trial starts from; none: a fresh start.
  /// In the protocol `"checkpoint": "<parent request id>"`, omitted when none.
  std::optional<RequestId> checkpoint{};
  /// The trial's dense index: its position in the search's creation order (not serialised;
  /// the Searcher checks it when it books the Create).
  std::uint32_t trial_index = 0;
  friend bool operator==(const Create&, const Create&) = default;
};

/// Train the trial until its total trained length is `length` (absolute), then validate and
/// report the searcher metric. A trial has at most one outstanding ValidateAfter.
struct ValidateAfter {
  RequestId request_id;
  std::uint64_t length = 0;
  std::optional<Explanation> explanation{};
  friend bool operator==(const ValidateAfter&, const ValidateAfter&) = default;
};

/// Once the trial's current ValidateAfter is completed, the trial is finished.
struct Close {
  RequestId request_id;
  std::optional<Explanation> explanation{};
  friend bool operator==(const Close&, const Close&) = default;
};

/// The search is over. `failure`: every requested trial errored; `cancel`: every requested
/// trial was canceled.
struct Shutdown {
  bool cancel = false;
  bool failure = false;
  friend bool operator==(const Shutdown&, const Shutdown&) = default;
};

using Operation = std::variant<Create, ValidateAfter, Close, Shutdown>;

/// The protocol form, e.g. `{"type":"validate_after","request_id":"…","length":100}`,
/// without explanations.
void to_json(nlohmann::json& j, const Operation& op);
/// The protocol form with an `"explain"` field on operations that carry an explanation.
[[nodiscard]] nlohmann::json operation_to_json(const Operation& op, bool explain);
/// Reads the protocol form. Throws ProtocolError naming the field on malformed input.
void from_json(const nlohmann::json& j, Operation& op);

/// The request id an operation is about; nullopt for Shutdown.
[[nodiscard]] const RequestId* request_id_of(const Operation& op);

}  // namespace hpsearch
