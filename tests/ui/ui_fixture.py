"""What the web UI's tests share (ui_api_test.py, ui_browser_test.py): a temporary experiment
store with experiments run by the real searcher-run, and `searcher-run ui` started on a free
port. The trial is tests/runner/trials/sdk_trial.py: validation loss (x - 3)^2 + 10/steps, so a
grid over x in {1, 3, 5} to length 4 has the losses 6.5, 2.5, 6.5, known beforehand."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

PYTHON = "/usr/bin/python3"
DEADLINE = 240  # seconds for anything to happen on a loaded machine: generous, never tight


def fail(what):
    raise SystemExit(f"{pathlib.Path(__import__('sys').argv[0]).name}: {what}")


def check(condition, what):
    if not condition:
        fail(what)


def wait_for(condition, what, deadline=DEADLINE):
    """Polls `condition` (returning a true value when met) until the deadline; its value."""
    end = time.monotonic() + deadline
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            fail(f"timed out waiting for {what}")
        time.sleep(0.2)


class Store:
    def __init__(self, searcher_run, source):
        self.searcher_run = searcher_run
        self.source = pathlib.Path(source)
        self.home = pathlib.Path(tempfile.mkdtemp(prefix="ui-test-"))
        self.root = self.home / "store"
        self.env = dict(os.environ, HPSEARCH_HOME=str(self.root), PYTHONDONTWRITEBYTECODE="1")
        self.model = self.home / "model"
        self.model.mkdir()
        shutil.copy(self.source / "tests" / "runner" / "trials" / "sdk_trial.py", self.model / "trial.py")

    def run(self, *args, expect=0):
        done = subprocess.run([self.searcher_run, *map(str, args)], capture_output=True, text=True,
                              env=self.env, timeout=DEADLINE, stdin=subprocess.DEVNULL)
        check(done.returncode == expect, f"searcher-run {' '.join(map(str, args))}: exit {done.returncode}\n"
                                         f"{done.stdout}{done.stderr}")
        return done

    def create(self, config, detach=False, options=()):
        """Creates and runs the experiment; `options`: searcher-run's run options (--slots N)."""
        path = self.home / f"{config['name']}.json"
        path.write_text(json.dumps(config))
        args = ["create", "--config", path, "--model-dir", self.model, "--json", *map(str, options)]
        if detach:
            args.append("--detach")
        done = self.run(*args)
        return json.loads(done.stdout.splitlines()[0])["id"]  # the first line, before the run's report

    def experiment_dir(self, id):
        return self.root / "experiments" / str(id)

    def journal(self, id):
        """The experiment's journal records (complete lines)."""
        # Up to the first zero byte: a running journal's spare space follows (docs/store.md).
        text = (self.experiment_dir(id) / "run" / "journal.jsonl").read_text().split("\0")[0]
        return [json.loads(line) for line in text.splitlines()]

    def cleanup(self):
        shutil.rmtree(self.home, ignore_errors=True)


def grid(name, xs, length, sleep=0.0):
    return {"name": name, "entrypoint": f"{PYTHON} trial.py",
            "hyperparameters": {"x": {"type": "categorical", "vals": xs}, "sleep": sleep},
            "searcher": {"name": "grid", "metric": "loss", "smaller_is_better": True,
                         "max_length": {"batches": length}, "max_concurrent_trials": 2},
            "max_restarts": 0}


def random_search(name, trials, length, sleep, concurrent=2):
    return {"name": name, "entrypoint": f"{PYTHON} trial.py",
            "hyperparameters": {"x": {"type": "double", "minval": 0, "maxval": 6}, "sleep": sleep},
            "searcher": {"name": "random", "metric": "loss", "smaller_is_better": True,
                         "max_trials": trials, "max_length": {"batches": length},
                         "max_concurrent_trials": concurrent},
            "reproducibility": {"experiment_seed": 7}, "max_restarts": 0}


class Server:
    """`searcher-run ui --port 0 [args]`: its base URL and token, read from what it prints."""

    def __init__(self, searcher_run, env, *args):
        self.process = subprocess.Popen([searcher_run, "ui", "--port", "0", *map(str, args)],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        lines = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                fail(f"searcher-run ui ended before printing its address: {lines} {self.process.stderr.read()}")
            lines.append(line)
            m = re.search(r"open (http://127\.0\.0\.1:(\d+))/#token=([0-9a-f]{32})", line)
            if m:
                self.url, self.port, self.token = m.group(1), int(m.group(2)), m.group(3)
                break

    def request(self, path, method="GET", headers=None):
        """(status, parsed JSON or text) of one request; never raises on an HTTP error."""
        req = urllib.request.Request(self.url + path, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=DEADLINE) as r:
                status, body, kind = r.status, r.read(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            status, body, kind = e.code, e.read(), e.headers.get("Content-Type", "")
        return status, (json.loads(body) if kind.startswith("application/json") else body.decode())

    def get(self, path):
        status, body = self.request(path)
        check(status == 200, f"GET {path}: {status} {body}")
        return body

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=DEADLINE)
