#!/usr/bin/env python3
"""Records a drive session of a format-1 build (main before samplers, 7da3efd) for the
format-1 restore test: the session's first half, a snapshot, then the second half's events
and the answers that build gave. The test restores the snapshot into this build and checks it
answers the second half identically.

Usage: record.py SEARCHER_SIM CONFIG OUT.json   (SEARCHER_SIM of the old build)
Trials are played FIFO; trial k (creation order) reports the metric ((k * 37) % 101) / 100 at
every length, and every fifth trial exits early at its first length."""
import collections
import json
import subprocess
import sys

sim, config, out = sys.argv[1:]
p = subprocess.Popen([sim, "drive", "--config", config, "--explain"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True, bufsize=1)


def send(event):
    p.stdin.write(json.dumps(event) + "\n")
    p.stdin.flush()
    return json.loads(p.stdout.readline())


queue = collections.deque()
index = {}
events = []  # (event, answer)
answer = send({"event": "initial_operations"})
events.append(({"event": "initial_operations"}, answer))
queue.extend(answer["operations"])
while queue:
    op = queue.popleft()
    rid = op["request_id"] if "request_id" in op else None
    if op["type"] == "create":
        index[rid] = len(index)
        event = {"event": "trial_created", "request_id": rid}
    elif op["type"] == "validate_after":
        k = index[rid]
        if k % 5 == 4:
            event = {"event": "trial_exited_early", "request_id": rid, "reason": "errored"}
        else:
            event = {"event": "validation_completed", "request_id": rid,
                     "metric": ((k * 37) % 101) / 100, "length": op["length"]}
    elif op["type"] == "close":
        event = {"event": "trial_closed", "request_id": rid}
    else:
        continue
    answer = send(event)
    if "error" in answer:  # e.g. a validate_after for a trial that already exited
        continue
    events.append((event, answer))
    queue.extend(answer["operations"])
p.stdin.close()
p.wait()

# Replay the first half into a fresh process and snapshot there.
half = len(events) // 2
p = subprocess.Popen([sim, "drive", "--config", config, "--explain"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, text=True, bufsize=1)
for event, expected in events[:half]:
    assert send(event) == expected
snapshot = send({"event": "snapshot"})["snapshot"]
assert snapshot["format_version"] == 1
p.stdin.close()
p.wait()
with open(out, "w") as f:
    json.dump({"config": config.split("/")[-1], "snapshot": snapshot,
               "after": [{"event": e, "answer": a} for e, a in events[half:]]}, f, indent=0,
              sort_keys=True)
    f.write("\n")
print(f"{out}: {half} events before the snapshot, {len(events) - half} after")
