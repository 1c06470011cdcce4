#pragma once
/// \file
/// Operations: what the searcher asks of whoever runs the trials (spec section 2.1).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <variant>
#include <vector>

#include "hpsearch/searcher/request_id.hpp"

namespace hpsearch {

/// Create one trial with these hyperparameters and this seed.
struct Create {
  RequestId request_id;
  std::uint32_t trial_seed = 0;
  nlohmann::json hparams = nlohmann::json::object();
  friend bool operator==(const Create&, const Create&) = default;
};

/// Train the trial until its total trained length is `length` (absolute), then validate and
/// report the searcher metric. A trial has at most one outstanding ValidateAfter.
struct ValidateAfter {
  RequestId request_id;
  std::uint64_t length = 0;
  friend bool operator==(const ValidateAfter&, const ValidateAfter&) = default;
};

/// Once the trial's current ValidateAfter is completed, the trial is finished.
struct Close {
  RequestId request_id;
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

/// The protocol form, e.g. `{"type":"validate_after","request_id":"…","length":100}`.
void to_json(nlohmann::json& j, const Operation& op);
/// Reads the protocol form. Throws ProtocolError naming the field on malformed input.
void from_json(const nlohmann::json& j, Operation& op);

/// The request id an operation is about; nullopt for Shutdown.
[[nodiscard]] const RequestId* request_id_of(const Operation& op);

}  // namespace hpsearch
