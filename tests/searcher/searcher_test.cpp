// The Searcher wrapper (spec 2.3), exercised through random search.
#include <doctest/doctest.h>

#include "hpsearch/config/catalog.hpp"
#include "support/ops.hpp"

using namespace hpsearch;
using namespace hpsearch::testing;

namespace {
Searcher random_searcher(std::uint64_t trials, std::uint64_t concurrent,
                         std::uint64_t length = 100) {
  return make_searcher(
      RandomConfig{.max_length = length, .max_trials = trials, .max_concurrent_trials = concurrent},
      HyperparameterSpace(), 0);
}
}  // namespace

TEST_CASE("searcher: the worked random trace of spec 2.4 (T=2, C=1, L=100)") {
  Searcher s = random_searcher(2, 1);
  const auto initial = s.initial_operations();
  REQUIRE(initial.size() == 3);
  const RequestId a = only_create(initial).request_id;
  CHECK(initial[1] == Operation(ValidateAfter{a, 100}));
  CHECK(initial[2] == Operation(Close{a}));
  CHECK(s.book().trials_requested() == 1);

  CHECK(s.handle(TrialCreated{a}).empty());
  CHECK(s.handle(ValidationCompleted{a, 0.5, 100}).empty());
  const auto after_a = s.handle(TrialClosed{a});
  REQUIRE(after_a.size() == 3);  // the next trial, and no shutdown: 2 requested, 1 closed
  const RequestId b = only_create(after_a).request_id;
  CHECK(after_a[1] == Operation(ValidateAfter{b, 100}));
  CHECK(after_a[2] == Operation(Close{b}));

  CHECK(s.handle(TrialCreated{b}).empty());
  CHECK(s.handle(ValidationCompleted{b, 0.1, 100}).empty());
  CHECK(s.handle(TrialClosed{b}) == std::vector<Operation>{Shutdown{false, false}});
  CHECK(s.shut_down());
  CHECK(s.progress() == 1.0);
}

TEST_CASE("searcher: one canceled trial of two still completes the search") {
  Searcher s = random_searcher(2, 1);
  const RequestId a = only_create(s.initial_operations()).request_id;
  s.handle(TrialCreated{a});
  s.handle(ValidationCompleted{a, 0.5, 100});
  const RequestId b = only_create(s.handle(TrialClosed{a})).request_id;
  s.handle(TrialCreated{b});
  CHECK(s.handle(TrialExitedEarly{b, ExitedReason::kUserCanceled}).empty());
  CHECK(s.handle(TrialClosed{b}) == std::vector<Operation>{Shutdown{false, false}});
}

TEST_CASE("searcher: every trial canceled cancels, every trial errored fails") {
  SUBCASE("single, killed") {
    Searcher s = make_searcher(SingleConfig{10}, HyperparameterSpace(), 0);
    const RequestId a = only_create(s.initial_operations()).request_id;
    s.handle(TrialCreated{a});
    s.handle(TrialExitedEarly{a, ExitedReason::kUserCanceled});
    CHECK(s.handle(TrialClosed{a}) == std::vector<Operation>{Shutdown{true, false}});
  }
  SUBCASE("random, all errored (errored trials are not replaced)") {
    Searcher s = random_searcher(2, 0);
    const auto creates = all_of_type<Create>(s.initial_operations());
    REQUIRE(creates.size() == 2);
    for (const Create& c : creates) s.handle(TrialCreated{c.request_id});
    for (const Create& c : creates) {
      CHECK(s.handle(TrialExitedEarly{c.request_id, ExitedReason::kErrored}).empty());
    }
    CHECK(s.handle(TrialClosed{creates[0].request_id}).empty());
    CHECK(s.handle(TrialClosed{creates[1].request_id}) ==
          std::vector<Operation>{Shutdown{false, true}});
  }
}

TEST_CASE("searcher: a repeated early-exit report is ignored") {
  Searcher s = random_searcher(1, 1);
  const RequestId a = only_create(s.initial_operations()).request_id;
  s.handle(TrialCreated{a});
  s.handle(TrialExitedEarly{a, ExitedReason::kErrored});
  const nlohmann::json before = s.snapshot();
  CHECK(s.handle(TrialExitedEarly{a, ExitedReason::kUserCanceled}).empty());
  CHECK(s.snapshot() == before);
}

TEST_CASE("searcher: events that are not allowed are refused by name, state unchanged") {
  Searcher s = random_searcher(2, 1);
  HPSEARCH_CHECK_THROWS_TEXT(
      s.handle(TrialCreated{}),
      "trial_created: the search has not started (call initial_operations first)", ProtocolError);
  const RequestId a = only_create(s.initial_operations()).request_id;
  const std::string id = a.to_string();
  const RequestId stranger = *RequestId::parse("00000000-0000-4000-8000-000000000000");
  const nlohmann::json start = s.snapshot();

  HPSEARCH_CHECK_THROWS_TEXT(s.initial_operations(),
                             "initial_operations: the search has already started", ProtocolError);
  HPSEARCH_CHECK_THROWS_TEXT(
      s.handle(TrialCreated{stranger}),
      "trial_created for trial 00000000-0000-4000-8000-000000000000: no create "
      "operation has requested this id",
      ProtocolError);
  HPSEARCH_CHECK_THROWS_TEXT(s.handle(ValidationCompleted{a, 1, 100}),
                             "validation_completed for trial " + id +
                                 ": the trial has not been created (send trial_created first)",
                             ProtocolError);
  CHECK(s.snapshot() == start);

  s.handle(TrialCreated{a});
  const nlohmann::json created = s.snapshot();
  HPSEARCH_CHECK_THROWS_TEXT(s.handle(TrialCreated{a}),
                             "trial_created for trial " + id + ": the trial was already created",
                             ProtocolError);
  HPSEARCH_CHECK_THROWS_TEXT(
      s.handle(ValidationCompleted{a, 1, 50}),
      "validation_completed for trial " + id +
          ": length 50 is not the trial's outstanding validate_after length 100",
      ProtocolError);
  HPSEARCH_CHECK_THROWS_TEXT(s.handle(TrialClosed{a}),
                             "trial_closed for trial " + id +
                                 ": its validate_after length 100 is not completed; report "
                                 "validation_completed, or trial_exited_early first if it stopped",
                             ProtocolError);
  HPSEARCH_CHECK_THROWS_TEXT(
      s.handle(TrialProgress{a, -1}),
      "trial_progress for trial " + id + ": units must be a finite number >= 0", ProtocolError);
  CHECK(s.snapshot() == created);

  s.handle(ValidationCompleted{a, 1, 100});
  HPSEARCH_CHECK_THROWS_TEXT(s.handle(ValidationCompleted{a, 1, 100}),
                             "validation_completed for trial " + id +
                                 ": its validate_after length 100 was already completed",
                             ProtocolError);
  s.handle(TrialClosed{a});
  HPSEARCH_CHECK_THROWS_TEXT(s.handle(TrialClosed{a}),
                             "trial_closed for trial " + id + ": the trial is already closed",
                             ProtocolError);
  HPSEARCH_CHECK_THROWS_TEXT(s.handle(TrialExitedEarly{a, ExitedReason::kErrored}),
                             "trial_exited_early for trial " + id + ": the trial is already closed",
                             ProtocolError);
}

TEST_CASE("searcher: progress is kept incrementally (random: spec 3.3)") {
  Searcher s = random_searcher(2, 0, 100);  // both trials at once
  const auto creates = all_of_type<Create>(s.initial_operations());
  const RequestId a = creates[0].request_id;
  const RequestId b = creates[1].request_id;
  CHECK(s.progress() == 0.0);
  s.handle(TrialCreated{a});
  s.handle(TrialCreated{b});
  s.handle(TrialProgress{a, 50});
  CHECK(s.progress() == 0.25);
  s.handle(TrialProgress{a, 80});  // idempotent: the latest value counts, not the sum
  CHECK(s.progress() == 0.4);
  s.handle(TrialProgress{b, 20});
  CHECK(s.progress() == 0.5);
  s.handle(ValidationCompleted{a, 1, 100});
  s.handle(TrialClosed{a});  // a closed trial counts max_length
  CHECK(s.progress() == 0.6);
  // An invalid-hyperparameter trial leaves progress, and random replaces it.
  s.handle(TrialExitedEarly{b, ExitedReason::kInvalidHp});
  CHECK(s.progress() == 0.5);
  const auto replacement = s.handle(TrialClosed{b});
  CHECK(all_of_type<Create>(replacement).size() == 1);
  CHECK(s.progress() == 0.5);
}

TEST_CASE("trial book: operations from outside (a custom method) are checked, named and why") {
  // A book with trial a created and validating to 10, trial b closed after its validation.
  const RequestId a = *RequestId::parse("11111111-2222-4333-8444-555555555555");
  const RequestId b = *RequestId::parse("21111111-2222-4333-8444-555555555555");
  const RequestId c = *RequestId::parse("31111111-2222-4333-8444-555555555555");
  TrialBook book;
  book.record({Create{a, 42, nlohmann::json::object(), std::nullopt, 0}, ValidateAfter{a, 10},
               Create{b, 42, nlohmann::json::object(), std::nullopt, 1}, ValidateAfter{b, 5},
               Close{b}});
  for (const RequestId& id : {a, b}) book.apply(TrialCreated{id}, *book.index_of(id));
  book.apply(ValidationCompleted{b, 1.0, 5}, *book.index_of(b));
  book.apply(TrialClosed{b}, *book.index_of(b));
  const auto refusal = [&](const std::vector<Operation>& ops) -> std::string {
    try {
      book.check_operations(ops);
    } catch (const ProtocolError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(refusal({Create{c, 42, nlohmann::json::object(), std::nullopt, 2}, ValidateAfter{c, 3},
                 Close{c}}) == "");
  CHECK(refusal({Close{a}}) == "");
  CHECK(refusal({Shutdown{}}) == "");
  CHECK(refusal({Create{a, 42, nlohmann::json::object(), std::nullopt, 2}}) ==
        "operation 0 (create for trial " + a.to_string() +
            "): this request id was already requested");
  CHECK(refusal({ValidateAfter{c, 3}}) == "operation 0 (validate_after for trial " + c.to_string() +
                                              "): no create operation has requested this id");
  CHECK(refusal({ValidateAfter{a, 20}}) ==
        "operation 0 (validate_after for trial " + a.to_string() +
            "): its validate_after length 10 is still outstanding (one at a time)");
  CHECK(refusal({Close{b}}) ==
        "operation 0 (close for trial " + b.to_string() + "): the trial is already closed");
  // Within one list: the list's own creates and closes count.
  CHECK(refusal({Create{c, 42, nlohmann::json::object(), std::nullopt, 2}, Close{c},
                 ValidateAfter{c, 3}}) == "operation 2 (validate_after for trial " + c.to_string() +
                                              "): the trial was already asked to close");
  CHECK(refusal({Create{c, 42, nlohmann::json::object(), std::nullopt, 2},
                 Create{c, 42, {}, std::nullopt, 3}})
            .find("operation 1 (create") == 0);
  CHECK(refusal({Shutdown{}, Close{a}}) ==
        "operation 1 (close for trial " + a.to_string() + "): the search has already shut down");
  // A length not beyond the last (lengths are absolute), once the last is completed.
  book.apply(ValidationCompleted{a, 1.0, 10}, *book.index_of(a));
  CHECK(refusal({ValidateAfter{a, 10}}).find("length 10 is not beyond") != std::string::npos);
  CHECK(refusal({ValidateAfter{a, 11}}) == "");
  // Checking changes nothing: the book still takes what it refused nothing of.
  book.check_operations({ValidateAfter{a, 11}});
  book.record({ValidateAfter{a, 11}});
  CHECK(refusal({ValidateAfter{a, 12}}).find("still outstanding") != std::string::npos);
}
