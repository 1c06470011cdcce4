#pragma once
/// \file
/// Errors a caller of the searcher can cause.

#include <stdexcept>
#include <string>

namespace hpsearch {

/// Thrown when a caller misuses the searcher's event protocol: an event for a request id that
/// was never created, a validation for a length that is not the trial's outstanding
/// `validate_after`, a second completion of the same operation, or a snapshot that does not
/// restore. The message names the event, the request id and what was expected. The searcher's
/// state is unchanged when this is thrown.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hpsearch
