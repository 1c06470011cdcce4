"""The cost-per-trial drivers, in Python: Optuna's pruners and hpsearch's ASHA through the
hpsearch module, in-process, one trial at a time with an objective that costs nothing, so the
time is the decision machinery's. Shared by peers.py (the peers harness) and
bench/python_bench.cpp (Google Benchmark, embedding the interpreter): both run these functions.

Each function plays a whole search of `trials` trials and returns the CPU seconds the driving
thread spent (time.thread_time): both sides are single-threaded and CPU-bound, and CPU time,
unlike wall time, stays meaningful on a machine shared with other work.
"""
import random
import time

MAX_LENGTH = 27


def optuna_seconds(trials, pruner_name, seed=0):
    """Optuna's RandomSampler with its SuccessiveHalvingPruner (defaults) or HyperbandPruner
    (min_resource 1, max_resource 27, reduction_factor 3): each trial suggests one float,
    reports 27 steps and calls should_prune after each."""
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    pruner = (optuna.pruners.SuccessiveHalvingPruner() if pruner_name == "successive_halving"
              else optuna.pruners.HyperbandPruner(min_resource=1, max_resource=MAX_LENGTH, reduction_factor=3))
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed), pruner=pruner)
    rng = random.Random(seed)

    def objective(trial):
        trial.suggest_float("x", 0, 1)
        value = rng.random()
        for step in range(1, MAX_LENGTH + 1):
            trial.report(value + 1.0 / step, step)
            if trial.should_prune():
                raise optuna.TrialPruned()
        return value

    start = time.thread_time()
    study.optimize(objective, n_trials=trials)
    return time.thread_time() - start


def searcher_config(method, max_trials, seed, concurrent=1):
    """The experiment config hpsearch runs for the comparison, as a dict: rungs at 1, 3, 9, 27
    (async_halving) or adaptive_asha's brackets over max_length 27, divisor 3."""
    body = ({"name": "async_halving", "num_rungs": 4, "divisor": 3} if method == "async_halving"
            else {"name": "adaptive_asha", "divisor": 3, "mode": "standard"} if method == "adaptive_asha"
            else {"name": "random"})
    body.update({"metric": "loss", "max_length": MAX_LENGTH, "max_trials": max_trials,
                 "max_concurrent_trials": concurrent})
    return {"searcher": body, "hyperparameters": {"x": {"type": "double", "minval": 0, "maxval": 1}},
            "reproducibility": {"experiment_seed": seed}}


def hpsearch_python_seconds(trials, method, seed=0):
    """hpsearch's async_halving or adaptive_asha through hpsearch.Searcher, in-process: one
    trial at a time, each operation answered in the order the searcher emitted it (FIFO), a
    random metric at every validation. The searcher is built before the clock starts, as
    Optuna's study is."""
    import hpsearch
    searcher = hpsearch.Searcher(searcher_config(method, trials, seed))
    rng = random.Random(seed)
    start = time.thread_time()
    pending = searcher.initial_operations()
    created = 0
    while pending:
        op = pending.pop(0)
        kind = op["type"]
        if kind == "create":
            created += 1
            pending += searcher.trial_created(op["request_id"])
        elif kind == "validate_after":
            pending += searcher.validation_completed(op["request_id"], rng.random(), op["length"])
        elif kind == "close":
            pending += searcher.trial_closed(op["request_id"])
    elapsed = time.thread_time() - start
    if created != trials:
        raise RuntimeError(f"{method}: {created} trials created, expected {trials}")
    return elapsed
