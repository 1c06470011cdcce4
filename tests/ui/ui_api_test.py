"""The web UI's JSON API end to end, over HTTP against `searcher-run ui` on a real experiment
store: every endpoint, paging and sorting, the token (401/403 and nothing changed), pause /
activate / kill, path traversal (404), the Host check, a damaged store record (an error row; the
server keeps answering), and --dir over a run directory and a simulation's --out directory.

    ui_api_test.py SEARCHER_RUN SEARCHER_SIM SOURCE_DIR

Expected values come from the trial's formula (ui_fixture.py), the files the programs wrote
(the simulator's trace), or the request itself; generous deadlines: the machine may be loaded."""
import hashlib
import http.client
import json
import pathlib
import shutil
import socket
import subprocess
import sys
import time

from ui_fixture import Server, Store, check, grid, random_search, wait_for

searcher_run, searcher_sim, source = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
store = Store(searcher_run, source)


def tree_digest(directory):
    """Every file under `directory` with its bytes: what a refused request must not change."""
    h = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and p.name != "store.lock"):
        h.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def raw_get(port, path, host=None):
    """A request with the path exactly as given (no client normalisation)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=240)
    conn.putrequest("GET", path, skip_host=True)
    conn.putheader("Host", host or f"127.0.0.1:{port}")
    conn.endheaders()
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, body


def since_start(journal, at):
    """A journal time as seconds since its first record, to the millisecond (as recorded)."""
    return round((at - journal[0]["at"]) * 1000) / 1000


def launches_of(journal):
    """The journal's launches, as (slot, start, end) in seconds since its first record: a launch
    record's slot and time, up to the trial's next exit record (None: none was journaled)."""
    open_launch, out = {}, []
    for r in journal:
        if "launched" in r:
            b = r["launched"]
            open_launch[b["request_id"]] = len(out)
            out.append([b["slot"], since_start(journal, b["at"]), None])
        elif "exited" in r and r["exited"]["request_id"] in open_launch:
            out[open_launch.pop(r["exited"]["request_id"])][2] = since_start(journal, r["exited"]["at"])
    return out


def best_so_far(journal, x):
    """[x(record), metric] at each validation better (smaller) than all before it."""
    out = []
    for r in journal:
        if r.get("in", {}).get("event") == "validation_completed" and (not out or r["in"]["metric"] < out[-1][1]):
            out.append([x(r), r["in"]["metric"]])
    return out


def check_lanes(spans, lanes, what):
    """No two spans overlap on one lane, and every lane is one of `lanes`."""
    check(all(0 <= s["lane"] < lanes for s in spans), f"{what}: lanes 0 to {lanes - 1}: {spans}")
    for lane in range(lanes):
        on = sorted((s["start"], s["end"]) for s in spans if s["lane"] == lane)
        check(all(a[1] <= b[0] + 1e-9 for a, b in zip(on, on[1:])), f"{what}: lane {lane} overlaps: {on}")


try:
    # ---- the store: a finished grid, and one with damaged records -------------------------------
    done_id = store.create(grid("ui-grid", [1, 3, 5], 4))
    broken_id = store.create(grid("ui-broken", [1, 3], 2))
    broken = store.experiment_dir(broken_id)
    (broken / "state.json").write_text("{ not json")
    with open(broken / "run" / "journal.jsonl", "a") as journal:
        journal.write("this is no record\n")

    server = Server(searcher_run, store.env)

    # ---- GET /api/v1/experiments: both rows, the damaged one as an error row ---------------------
    listed = server.get("/api/v1/experiments")
    rows = {e["id"]: e for e in listed["experiments"]}
    check(sorted(rows) == [done_id, broken_id] and listed["pagination"]["total"] == 2, f"two rows: {listed}")
    e = rows[done_id]
    check(e["state"] == "STATE_COMPLETED" and e["name"] == "ui-grid" and e["numTrials"] == 3, f"the grid's row: {e}")
    check(abs(e["bestTrialSearcherMetric"] - 2.5) < 1e-12 and e["searcherMetric"] == "loss" and e["smallerIsBetter"],
          f"best loss (3-3)^2 + 10/4 = 2.5: {e}")
    check(e["progress"] == 1.0 and e["startTime"] and e["endTime"] and e["error"] is None, f"times, progress: {e}")
    b = rows[broken_id]
    check(b["state"] == "STATE_ERROR" and "state.json" in b["damaged"], f"damaged state.json is said: {b}")
    check(b["error"] and "journal.jsonl" in b["error"], f"the damaged journal record is named: {b}")
    check(b["numTrials"] == 2, f"what the journal held before the damaged record is kept: {b}")

    # ---- GET /api/v1/experiments/{id} ----------------------------------------------------------------
    got = server.get(f"/api/v1/experiments/{done_id}")
    check(got["experiment"]["id"] == done_id and got["config"]["searcher"]["name"] == "grid", f"experiment: {got}")
    check(got["experiment"]["store"]["directory"] == str(store.experiment_dir(done_id)), f"the store's record: {got}")

    # ---- trials: paging and sorting -----------------------------------------------------------------
    page = server.get(f"/api/v1/experiments/{done_id}/trials")
    trials = page["trials"]
    check(page["pagination"]["total"] == 3 and len(trials) == 3, f"three trials: {page}")
    loss = {t["hparams"]["x"]: t["latestValidation"]["metrics"]["avgMetrics"]["loss"] for t in trials}
    check(loss == {1: 6.5, 3: 2.5, 5: 6.5}, f"each trial's loss (x-3)^2 + 10/4: {loss}")
    check(all(t["state"] == "STATE_COMPLETED" and t["totalBatchesProcessed"] == 4 and t["restarts"] == 0
              for t in trials), f"states and lengths: {trials}")
    by_best = server.get(f"/api/v1/experiments/{done_id}/trials?sortBy=best")["trials"]
    check(by_best[0]["hparams"]["x"] == 3, f"sortBy=best puts x=3 first: {by_best}")
    by_hp = server.get(f"/api/v1/experiments/{done_id}/trials?sortBy=hp.x&orderBy=ORDER_BY_DESC")["trials"]
    check([t["hparams"]["x"] for t in by_hp] == [5, 3, 1], f"sortBy=hp.x descending: {by_hp}")
    second = server.get(f"/api/v1/experiments/{done_id}/trials?sortBy=hp.x&offset=1&limit=1")
    check([t["hparams"]["x"] for t in second["trials"]] == [3], f"offset=1&limit=1: {second}")
    for query, word in [("sortBy=colour", "sortBy"), ("limit=0", "limit"), ("orderBy=UP", "orderBy"),
                        ("offset=-1", "offset")]:
        status, body = server.request(f"/api/v1/experiments/{done_id}/trials?{query}")
        check(status == 400 and word in body["error"], f"{query}: 400 naming {word}: {status} {body}")

    # ---- a trial: itself, its metrics by group, its logs, its checkpoints ----------------------------
    best = by_best[0]
    tid = best["id"]
    trial = server.get(f"/api/v1/trials/{tid}")["trial"]
    check(trial["experimentId"] == done_id and trial["hparams"]["x"] == 3, f"trial {tid}: {trial}")
    check([(v["length"], v["metric"]) for v in trial["validations"]] == [(4, 2.5)], f"its validation: {trial}")
    validation = server.get(f"/api/v1/trials/{tid}/metrics?group=validation")["metrics"]
    check(len(validation) == 1 and validation[0]["totalBatches"] == 4 and validation[0]["metrics"]["loss"] == 2.5
          and abs(validation[0]["metrics"]["accuracy"] - 1 / 3.5) < 1e-12, f"validation metrics: {validation}")
    training = server.get(f"/api/v1/trials/{tid}/metrics?group=training")["metrics"]
    check([(m["totalBatches"], m["metrics"]["loss"]) for m in training] == [(s, 10 / s) for s in (1, 2, 3, 4)],
          f"training metrics 10/steps at steps 1..4: {training}")
    check(len(server.get(f"/api/v1/trials/{tid}/metrics")["metrics"]) == 5, "all groups: 4 + 1 reports")
    logs = server.get(f"/api/v1/trials/{tid}/logs")
    check(f"trial {tid} of experiment {done_id} starts at step 0" in logs["logs"] and f"trial {tid} done" in logs["logs"],
          f"its output: {logs}")
    check(logs["offset"] == 0 and logs["nextOffset"] == len(logs["logs"].encode()), f"offsets: {logs}")
    rest = server.get(f"/api/v1/trials/{tid}/logs?offset=6")
    check(rest["logs"] == logs["logs"][6:] and rest["nextOffset"] == logs["nextOffset"], f"from byte 6: {rest}")
    check(server.get(f"/api/v1/trials/{tid}/logs?offset={logs['nextOffset']}")["logs"] == "", "nothing new: empty")
    checkpoints = server.get(f"/api/v1/trials/{tid}/checkpoints")["checkpoints"]
    described = json.loads(store.run("checkpoint", checkpoints[-1]["uuid"], "--json").stdout)
    check(checkpoints and checkpoints[-1]["totalBatches"] == 4 and described["experiment_id"] == done_id,
          f"its latest checkpoint is the store's: {checkpoints} {described}")

    # ---- the charts' data and its version --------------------------------------------------------
    charts = server.get(f"/api/v1/experiments/{done_id}/charts")
    check(charts["bestSoFar"][-1][1] == 2.5 and charts["bestSoFar"][-1][2] == tid, f"best so far ends at 2.5: {charts}")
    check(charts["rungs"] == [{"length": 4, "validations": 3}], f"three validations at length 4: {charts['rungs']}")
    check(len(charts["curves"]) == 3 and charts["points"]["shown"] == 3, f"curves and points: {charts}")
    check(sorted(charts["points"]["metric"]) == [2.5, 6.5, 6.5], f"the points' metrics: {charts['points']}")
    imp = charts["importance"]
    check("Spearman" in imp["method"] and [v["name"] for v in imp["values"]] == ["x"],
          f"importance of x (the const sleep left out): {imp}")
    check(server.get(f"/api/v1/experiments/{done_id}/charts?since={charts['version']}") ==
          {"version": charts["version"], "unchanged": True}, "since=VERSION: unchanged")

    # ---- not found ------------------------------------------------------------------------------------
    for path in ["/api/v1/experiments/99", "/api/v1/experiments/abc", "/api/v1/trials/999",
                 "/api/v1/trials/0/logs", "/api/v1/experiments/1/nothing", "/api/v2/experiments"]:
        status, body = server.request(path)
        check(status == 404 and body["error"], f"{path}: 404 with a reason: {status} {body}")

    # ---- path traversal: only the embedded pages are files --------------------------------------------
    status, body = raw_get(server.port, "/")
    check(status == 200 and b"<!DOCTYPE html>" in body, "/ is the page")
    for path in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2f..%2fetc%2fpasswd",
                 "/app.js/../../../etc/passwd", "/api/v1/../../../etc/passwd", "//etc/passwd",
                 f"/api/v1/trials/{tid}/logs/../../../../etc/passwd", "/experiment.yaml", "/run/journal.jsonl"]:
        status, body = raw_get(server.port, path)
        check(status == 404 and b"root:" not in body, f"{path}: 404: {status} {body[:200]}")

    # ---- the Host check (DNS rebinding) ---------------------------------------------------------------
    status, body = raw_get(server.port, "/api/v1/experiments", host="attacker.example")
    check(status == 403 and b"attacker.example" in body, f"another Host: 403: {status} {body}")
    check(raw_get(server.port, "/api/v1/experiments", host=f"localhost:{server.port}")[0] == 200, "localhost:PORT")

    # ---- the token: refused POSTs change nothing -----------------------------------------------------
    running = store.create(random_search("ui-live", 6, 400, 0.05), detach=True)
    # ACTIVE with a trial created: its run is recorded (run.json), so a pause can be activated.
    wait_for(lambda: (lambda e: e["state"] == "STATE_ACTIVE" and e["numTrials"] > 0)(
        server.get(f"/api/v1/experiments/{running}")["experiment"]), "the detached experiment's first trial")
    for id in (done_id, running):
        before = tree_digest(store.experiment_dir(id)) if id == done_id else None
        for action in ("pause", "activate", "kill"):
            status, body = server.request(f"/api/v1/experiments/{id}/{action}", method="POST")
            check(status == 401 and "token" in body["error"], f"{action} without a token: 401: {status} {body}")
            status, body = server.request(f"/api/v1/experiments/{id}/{action}", method="POST",
                                          headers={"Authorization": "Bearer " + "0" * 32})
            check(status == 403, f"{action} with a wrong token: 403: {status} {body}")
            status, body = server.request(f"/api/v1/experiments/{id}/{action}", method="POST",
                                          headers={"Authorization": server.token})
            check(status == 403, f"{action} with the token but not as Bearer: 403: {status} {body}")
        if before is not None:
            check(tree_digest(store.experiment_dir(id)) == before, "refused POSTs changed no file")
    check(server.get(f"/api/v1/experiments/{running}")["experiment"]["state"] == "STATE_ACTIVE",
          "the running experiment still runs")

    # ---- pause, activate, kill with the token: the commands' own code ---------------------------------
    auth = {"Authorization": f"Bearer {server.token}"}

    def state_of(id):
        return server.get(f"/api/v1/experiments/{id}")["experiment"]["state"]

    status, body = server.request(f"/api/v1/experiments/{running}/pause", method="POST", headers=auth)
    check(status == 200 and body["action"] == "pause", f"pause: {status} {body}")
    wait_for(lambda: state_of(running) == "STATE_PAUSED", "the paused experiment to be PAUSED")
    status, body = server.request(f"/api/v1/experiments/{running}/pause", method="POST", headers=auth)
    check(status == 200 and body["message"] == "already PAUSED", f"pause again: {status} {body}")
    status, body = server.request(f"/api/v1/experiments/{running}/activate", method="POST", headers=auth)
    check(status == 200 and "ACTIVE" in body["message"], f"activate: {status} {body}")
    wait_for(lambda: state_of(running) == "STATE_ACTIVE", "the activated experiment to be ACTIVE")
    status, body = server.request(f"/api/v1/experiments/{running}/kill", method="POST", headers=auth)
    check(status == 200, f"kill: {status} {body}")
    wait_for(lambda: state_of(running) == "STATE_CANCELED", "the killed experiment to be CANCELED")
    status, body = server.request(f"/api/v1/experiments/{done_id}/pause", method="POST", headers=auth)
    check(status == 409 and "only an ACTIVE experiment" in body["error"], f"pause a completed one: {status} {body}")
    status, body = server.request(f"/api/v1/experiments/{done_id}/kill", method="POST", headers=auth)
    check(status == 200 and body["message"] == "already ended", f"kill a completed one: {status} {body}")
    status, body = server.request("/api/v1/experiments/77/kill", method="POST", headers=auth)
    check(status == 404, f"kill an unknown one: {status} {body}")
    status, body = server.request("/api/v1/experiments", method="PUT", headers=auth)
    check(status == 405, f"PUT: 405: {status} {body}")

    # The server kept answering through all of it.
    check(len(server.get("/api/v1/experiments")["experiments"]) == 3, "still answering")

    # ---- the worker timeline: 4 trials on --slots 2 ------------------------------------------------
    # A grid of 4 points, each trained once to max_length (one launch each: max_restarts 0), all 4
    # allowed at once by the searcher, so --slots 2 is the limit: 2 lanes, at most 2 at once.
    slots, xs = 2, [0, 2, 4, 6]
    config = grid("ui-slots", xs, 3, sleep=0.1)
    config["searcher"]["max_concurrent_trials"] = len(xs)
    slotted = store.create(config, options=("--slots", slots))
    journal = store.journal(slotted)
    expected = launches_of(journal)
    check(len(expected) == len(xs) and all(end is not None for _, _, end in expected),
          f"a launch and an exit journaled per trial: {expected}")
    charts = server.get(f"/api/v1/experiments/{slotted}/charts")
    timeline = charts["timeline"]
    check(charts["timeUnit"] == "seconds" and timeline["kind"] == "workers" and timeline["lanes"] == slots,
          f"a worker timeline of {slots} slots: {timeline}")
    spans = timeline["spans"]
    check(sorted([s["lane"], s["start"], s["end"]] for s in spans) == sorted(expected),
          f"a span per launch, on its slot, from its launch to its exit: {spans} {expected}")
    check_lanes(spans, slots, "--slots 2")
    edges = sorted([(s["start"], 1) for s in spans] + [(s["end"], -1) for s in spans])
    at_once = max(sum(d for _, d in edges[:k + 1]) for k in range(len(edges)))
    check(at_once == slots, f"at most (and, 4 trials for 2 slots, exactly) {slots} at once: {at_once}")
    best = best_so_far(journal, lambda r: since_start(journal, r["at"]))
    check([p[:2] for p in charts["bestSoFar"]] == best and best[-1][1] == (2 - 3) ** 2 + 10 / 3,
          f"best so far against the seconds since the first record: {charts['bestSoFar']} {best}")

    # The experiment paused, activated and killed above: each launch on its slot, a launch whose
    # exit the interruption left unjournaled ending before the next one began.
    running_launches = sum(1 for r in store.journal(running) if "launched" in r)
    timeline = server.get(f"/api/v1/experiments/{running}/charts")["timeline"]
    check(timeline["kind"] == "workers" and len(timeline["spans"]) == running_launches,
          f"a span per launch of the interrupted experiment ({running_launches}): {timeline}")
    check_lanes(timeline["spans"], timeline["lanes"], "paused and activated")
    server.stop()

    # ---- --dir: a run directory, read-only ------------------------------------------------------------
    server = Server(searcher_run, store.env, "--dir", store.experiment_dir(done_id) / "run")
    row = server.get("/api/v1/experiments")["experiments"]
    check(len(row) == 1 and row[0]["id"] == 1 and row[0]["name"] == "ui-grid" and row[0]["numTrials"] == 3
          and row[0]["bestTrialSearcherMetric"] == 2.5, f"--dir RUN: {row}")
    check(server.get("/api/v1/trials/2/metrics?group=validation")["metrics"][0]["metrics"]["loss"] in (2.5, 6.5),
          "trial numbers are the ids in a directory")
    status, body = server.request("/api/v1/experiments/1/kill", method="POST", headers={"Authorization": f"Bearer {server.token}"})
    check(status == 409 and "read-only" in body["error"], f"--dir is read-only: {status} {body}")
    server.stop()

    # ---- --dir: a journal written before launches and records carried a slot and a time -----------
    # The slots experiment's run with those fields taken out: it opens as before, drawn by record
    # number, with the trial timeline instead of the worker timeline.
    old_run = store.home / "old-run"
    shutil.copytree(store.experiment_dir(slotted) / "run", old_run, ignore=shutil.ignore_patterns("*.sock", "*.lock"))
    with open(old_run / "journal.jsonl", "w") as out:
        for r in journal:
            r.pop("at", None)
            for kind in ("launched", "exited"):
                if kind in r:
                    r[kind] = {"request_id": r[kind]["request_id"]}
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
    server = Server(searcher_run, store.env, "--dir", old_run)
    row = server.get("/api/v1/experiments")["experiments"][0]
    check(row["numTrials"] == len(xs) and row["bestTrialSearcherMetric"] == best[-1][1] and row["error"] is None,
          f"the old journal opens: {row}")
    charts = server.get("/api/v1/experiments/1/charts")
    check(charts["timeUnit"] == "journal record" and charts["timeline"]["kind"] == "trials",
          f"the old drawing: {charts['timeUnit']} {charts['timeline']}")
    by_record = best_so_far(journal, lambda r: r["seq"])
    check([p[:2] for p in charts["bestSoFar"]] == by_record, f"x: record numbers: {charts['bestSoFar']} {by_record}")
    server.stop()

    # ---- --dir: a simulation's --out directory --------------------------------------------------------
    sim = store.home / "sim"
    subprocess.run([searcher_sim, "run", "--config", source / "examples" / "branin_asha.yaml", "--workload",
                    "mf-branin", "--workers", "4", "--out", sim], check=True, capture_output=True, timeout=240)
    records = [json.loads(line) for line in (sim / "trace.jsonl").read_text().splitlines()]
    trace = [r for r in records if "in" in r]  # the searcher calls; the rest: workers taken and freed
    creates = [op for r in trace for op in r["out"]["operations"] if op["type"] == "create"]
    metrics = [r["in"]["metric"] for r in trace if r["in"]["event"] == "validation_completed"]
    summary = json.loads((sim / "summary.json").read_text())
    server = Server(searcher_run, store.env, "--dir", sim)
    row = server.get("/api/v1/experiments")["experiments"][0]
    check(row["simulation"] and row["numTrials"] == len(creates) == summary["trials_created"]
          and row["bestTrialSearcherMetric"] == min(metrics) and row["virtualSeconds"] == summary["wall_time"]
          and row["state"] == "STATE_COMPLETED", f"--dir SIM: {row} (creates {len(creates)}, best {min(metrics)})")
    charts = server.get("/api/v1/experiments/1/charts")
    check({r["length"]: r["validations"] for r in charts["rungs"]} ==
          {int(k): v for k, v in summary["validations_per_length"].items()}, f"rungs: {charts['rungs']} {summary}")
    check(server.get("/api/v1/trials/1")["trial"]["hparams"] == creates[0]["hparams"], "trial 1 is the first created")
    # The worker timeline: a span per worker taken in the trace, from then to when it was freed.
    taken, spans = {}, []
    for r in records:
        if "launched" in r:
            taken[r["launched"]["request_id"]] = (r["launched"]["worker"], r["time"])
        elif "exited" in r:
            worker, start = taken.pop(r["exited"]["request_id"])
            check(worker == r["exited"]["worker"], f"freed the worker it took: {r}")
            spans.append([worker, start, r["time"]])
    shown = charts["timeline"]
    check(charts["timeUnit"] == "virtual seconds" and shown["kind"] == "workers" and shown["lanes"] == 4
          and shown["launches"] == len(spans) + len(taken), f"a worker timeline of 4 workers: {shown['lanes']} {shown['launches']}")
    latest = sorted([s["lane"], s["start"], s["end"]] for s in shown["spans"] if not s.get("running"))
    check(all(span in sorted(spans) for span in latest) and len(shown["spans"]) == min(1000, len(spans) + len(taken)),
          "each span is a worker's launch in the trace")
    check_lanes(shown["spans"], 4, "the simulation's workers")
    check(server.get("/api/v1/trials/1/logs")["logs"] == "", "a simulated trial has no output")
    # ---- a flood of idle connections: answered in time, and nothing lost -----------------------------
    # 300 connections that send nothing hold the server's threads until their read times out
    # (1 s, 32 threads: about 10 s to drain them); with the library's defaults (5 s, 8 threads)
    # the request below waited over 3 minutes. The deadline is generous for a loaded machine.
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(300)]
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=90)
    conn.request("GET", "/api/v1/experiments/1")
    answer = conn.getresponse()
    waited = time.monotonic() - started
    check(answer.status == 200 and json.loads(answer.read())["experiment"]["id"] == 1 and waited < 90,
          f"answered behind 300 idle connections: {answer.status} after {waited:.1f} s")
    conn.close()
    for sock in idle:
        sock.close()
    check(server.get("/api/v1/experiments")["experiments"][0]["numTrials"] == len(creates),
          "the server answers as before once they are gone")
    server.stop()
finally:
    store.cleanup()
print("ui_api_test: ok")
