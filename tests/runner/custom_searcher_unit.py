"""determined.searcher's own logic, without a runner (tests/runner/custom_searcher_test.py runs it
end to end): the operations' protocol form, the exit-reason mapping, what each event does to the
SearcherState, the loop's posts (a post saved before a restart is posted again only while its
event is queued), and LocalSearchRunner's saved state.

    custom_searcher_unit.py SOURCE_DIR
"""
import pathlib
import sys
import tempfile
import uuid

sys.path.insert(0, str(pathlib.Path(sys.argv[1]) / "python"))

from determined import searcher  # noqa: E402
from determined.searcher import _search_runner  # noqa: E402

A = uuid.UUID("11111111-2222-4333-8444-555555555555")
B = uuid.UUID("21111111-2222-4333-8444-555555555555")


def check(condition, what):
    if not condition:
        sys.exit(f"custom_searcher_unit: {what}")


class Recorder(searcher.SearchMethod):
    """Answers each event with a fixed list, recording the calls."""

    def __init__(self):
        self.calls = []
        self.saved = None

    def initial_operations(self, state):
        self.calls.append(("initial",))
        return [searcher.Create(A, {"x": 1}, None), searcher.ValidateAfter(A, 4), searcher.Close(A)]

    def on_trial_created(self, state, request_id):
        self.calls.append(("created", request_id))
        return []

    def on_validation_completed(self, state, request_id, metric, train_length):
        self.calls.append(("validated", request_id, metric, train_length))
        return []

    def on_trial_closed(self, state, request_id):
        self.calls.append(("closed", request_id))
        return [searcher.Shutdown()]

    def on_trial_exited_early(self, state, request_id, exited_reason):
        self.calls.append(("exited", request_id, exited_reason))
        return []

    def progress(self, state):
        return 0.5

    def save_method_state(self, path):
        (path / "mine").write_text(str(len(self.calls)))

    def load_method_state(self, path):
        self.saved = int((path / "mine").read_text())


def operations_form():
    body = _search_runner._post_body(3, [searcher.Create(A, {"x": 1}, None), searcher.ValidateAfter(A, 4),
                                         searcher.Close(A), searcher.Progress(0.25),
                                         searcher.Shutdown(cancel=True)])
    check(body == {"triggered_by": 3, "progress": 0.25, "operations": [
        {"type": "create", "request_id": str(A), "trial_seed": 42, "hparams": {"x": 1}},
        {"type": "validate_after", "request_id": str(A), "length": 4},
        {"type": "close", "request_id": str(A)},
        {"type": "shutdown", "cancel": True, "failure": False}]}, f"post body: {body}")


def exited_reasons():
    E = searcher.ExitedReason
    mapped = {r: E._from_event(r) for r in ("errored", "invalid_hp", "init_invalid_hp", "user_requested_stop",
                                            "user_canceled")}
    check(mapped == {"errored": E.ERRORED, "invalid_hp": E.INVALID_HP, "init_invalid_hp": E.INVALID_HP,
                     "user_requested_stop": E.USER_CANCELED, "user_canceled": E.USER_CANCELED}, f"{mapped}")
    try:
        E._from_event("bored")
        check(False, "an unknown reason is refused")
    except RuntimeError as e:
        check("Invalid exited reason: bored" in str(e), str(e))


def events_update_state():
    method = Recorder()
    runner = _search_runner.SearchRunner(method)
    state = runner.state
    runner._get_operations({"id": 2, "event": "trial_created", "request_id": str(A)})
    runner._get_operations({"id": 3, "event": "trial_created", "request_id": str(B)})
    check(state.trials_created == {A, B} and state.trial_progress == {A: 0.0, B: 0.0}, "created")
    ops = runner._get_operations({"id": 4, "event": "trial_progress", "request_id": str(A), "units": 3})
    check(len(ops) == 1 and isinstance(ops[0], searcher.Progress) and ops[0].progress == 0.5, "progress op")
    check(state.trial_progress[A] == 3.0, "units recorded")
    runner._get_operations({"id": 5, "event": "validation_completed", "request_id": str(A), "metric": 12,
                            "length": 4})
    check(method.calls[-1] == ("validated", A, 12.0, 4) and isinstance(method.calls[-1][2], float),
          f"metric as a float: {method.calls[-1]}")
    runner._get_operations({"id": 6, "event": "trial_exited_early", "request_id": str(B), "reason": "invalid_hp"})
    check(B not in state.trial_progress and not state.failures, "invalid hyperparameters drop the progress")
    runner._get_operations({"id": 7, "event": "trial_exited_early", "request_id": str(A), "reason": "errored"})
    check(state.failures == {A}, "an error is a failure")
    ops = runner._get_operations({"id": 8, "event": "trial_closed", "request_id": str(A)})
    check(state.trials_closed == {A} and isinstance(ops[0], searcher.Shutdown), "closed")


class Scripted(_search_runner.LocalSearchRunner):
    """A LocalSearchRunner whose experiment is a script of answers; posts are recorded."""

    def __init__(self, method, directory, answers):
        super().__init__(method, searcher_dir=directory)
        self.answers = list(answers)
        self.posts = []

    def _events(self, experiment_id):
        return self.answers.pop(0)

    def _post(self, experiment_id, body):
        self.posts.append(body)


RUNNING = {"state": "running", "alive": True, "experiment_state": "ACTIVE"}


def first_two_events(directory):
    """Experiment 7's first process: events 1 and 2 handled and posted, then the run's end."""
    (directory / "exp_7").mkdir()
    first = Scripted(Recorder(), directory, [
        dict(RUNNING, events=[{"id": 1, "event": "initial_operations"}]),
        dict(RUNNING, events=[{"id": 2, "event": "trial_created", "request_id": str(A)}]),
        {"state": "completed", "alive": False, "experiment_state": "COMPLETED", "events": []}])
    first.state.experiment_id = 7
    first.run_experiment(7, None)
    return first


def loop_and_restart():
    with tempfile.TemporaryDirectory() as tmp:
        directory = pathlib.Path(tmp)
        running = {"state": "running", "alive": True, "experiment_state": "ACTIVE"}
        first = first_two_events(directory)
        check([p["triggered_by"] for p in first.posts] == [1, 2], f"one post per event: {first.posts}")
        check(len(first.posts[0]["operations"]) == 3, "the initial operations")
        check(first.state.experiment_completed and first.state.last_event_id == 2, "the end")
        # A restart: the state of event 2 is loaded with its post, which is posted again only
        # while event 2 is still queued; then event 3 is handled as new.
        second = Scripted(Recorder(), directory, [
            dict(running, events=[{"id": 2, "event": "trial_created", "request_id": str(A)},
                                  {"id": 3, "event": "trial_closed", "request_id": str(A)}]),
            {"state": "failed", "alive": False, "experiment_state": "ERROR", "events": []}])
        prior = second.load_state(7)
        check(prior == first.posts[1], f"the saved post: {prior}")
        check(second.search_method.saved == 2 and second.state.trials_created == {A}, "the method's state")
        second.run_experiment(7, prior)
        check([p["triggered_by"] for p in second.posts] == [2, 3], f"re-posted, then new: {second.posts}")
        check(second.posts[1]["operations"] == [{"type": "shutdown", "cancel": False, "failure": False}], "close")
        check(not second.state.experiment_completed, "a failed experiment is not completed")
        third = Scripted(Recorder(), directory, [
            dict(running, events=[{"id": 4, "event": "trial_closed", "request_id": str(B)}]),
            {"state": "completed", "alive": False, "experiment_state": "COMPLETED", "events": []}])
        third.run_experiment(7, third.load_state(7))
        check([p["triggered_by"] for p in third.posts] == [4], f"nothing re-posted once answered: {third.posts}")


def repost_already_applied():
    """The race of a restart: the earlier process's post for event 2 reached the runner's inbox;
    this process saw event 2 still queued, but the runner applied the inbox's post before this
    one's post came, dropped event 2 and refused it. The search goes on (event 3 is handled);
    a refusal while the event is still queued is an error, raised."""
    from determined.experimental import _store

    class Refused(Scripted):
        def __init__(self, method, directory, answers, queue_after_refusal):
            super().__init__(method, directory, answers)
            self.queue_after_refusal = queue_after_refusal

        def _post(self, experiment_id, body):
            if body["triggered_by"] == 2:
                raise _store.APIException("experiment 7 refused the operations: event 2 not found")
            super()._post(experiment_id, body)

        def _queued(self, experiment_id, event_id):
            return event_id in self.queue_after_refusal

    running = {"state": "running", "alive": True, "experiment_state": "ACTIVE"}

    def restarted(directory, queue_after_refusal):
        """Events 1 and 2 handled and posted, then a restart that finds events 2 and 3 queued."""
        first_two_events(directory)
        second = Refused(Recorder(), directory, [
            dict(running, events=[{"id": 2, "event": "trial_created", "request_id": str(A)},
                                  {"id": 3, "event": "trial_closed", "request_id": str(A)}]),
            {"state": "completed", "alive": False, "experiment_state": "COMPLETED", "events": []}],
            queue_after_refusal)
        second.run_experiment(7, second.load_state(7))
        return second

    with tempfile.TemporaryDirectory() as tmp:
        applied = restarted(pathlib.Path(tmp), queue_after_refusal={3})
        check([p["triggered_by"] for p in applied.posts] == [3], f"went on to event 3: {applied.posts}")
    with tempfile.TemporaryDirectory() as tmp:
        try:
            restarted(pathlib.Path(tmp), queue_after_refusal={2, 3})
            check(False, "a refusal while the event is queued is raised")
        except _store.APIException as e:
            check("event 2 not found" in str(e), str(e))


def state_round_trip():
    state = searcher.SearcherState()
    state.failures, state.trials_closed, state.trials_created = {A}, {B}, {A, B}
    state.trial_progress, state.last_event_id, state.experiment_id = {B: 2.5}, 9, 3
    again = searcher.SearcherState()
    again.from_dict(state.to_dict())
    check(again.to_dict() == state.to_dict() and again.trial_progress == {B: 2.5}, "SearcherState round trip")


def older_names():
    # Determined's examples of 0.19 to 0.2x: `from determined.searcher.search_runner import
    # LocalSearchRunner` and `search_runner.run(config, context_dir=...)`.
    from determined.searcher import search_method, search_runner
    from determined.experimental import client
    check(search_runner.LocalSearchRunner is searcher.LocalSearchRunner, "search_runner.LocalSearchRunner")
    check(search_runner.RemoteSearchRunner is searcher.RemoteSearchRunner, "search_runner.RemoteSearchRunner")
    check(search_method.SearchMethod is searcher.SearchMethod, "search_method.SearchMethod")
    created = []

    class Created:
        id = 12

    def create_experiment(config, model_dir, includes=None):
        created.append((config, model_dir))
        return Created()

    class Driven(searcher.LocalSearchRunner):
        def run_experiment(self, experiment_id, prior_operations):
            created.append(("driven", experiment_id))

    saved = client.create_experiment
    client.create_experiment = create_experiment
    try:
        with tempfile.TemporaryDirectory() as directory:
            Driven(Recorder(), searcher_dir=pathlib.Path(directory) / "a").run("c.yaml", context_dir="files")
            check(created == [("c.yaml", "files"), ("driven", 12)], f"context_dir is the model dir: {created}")
            try:
                Driven(Recorder(), searcher_dir=pathlib.Path(directory) / "b").run(
                    "c.yaml", model_dir="x", context_dir="y")
                check(False, "model_dir and context_dir together refused")
            except TypeError as e:
                check("not both" in str(e), str(e))
    finally:
        client.create_experiment = saved


if __name__ == "__main__":
    for case in (operations_form, exited_reasons, events_update_state, loop_and_restart,
                 repost_already_applied, state_round_trip, older_names):
        case()
    print("custom_searcher_unit: ok")
