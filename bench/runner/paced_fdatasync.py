# One fdatasync of a journal-sized record written over zeros synced ahead (as the runner's
# journal writes them), back to back and with a pause before each sync (as the runner waits for
# its trial between operations): 3 interleaved blocks of 200 per pause, medians
# (docs/PERFORMANCE.md, "Launching a trial"). Usage: paced_fdatasync.py FILE [PAUSE_MS ...] (FILE created and
# removed; pauses 0 1 4 by default).
import os, statistics, sys, time
line = b'{"seq":1,"in":{"event":"validation_completed"},"out":{"operations":[]}}\n' * 6
path = sys.argv[1]
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
os.write(fd, bytes(len(line) * 5000)); os.fdatasync(fd)
off = 0
def block(pause, n=200):
    global off
    out = []
    for _ in range(n):
        if pause: time.sleep(pause)
        t = time.perf_counter()
        os.pwrite(fd, line, off); off += len(line)
        os.fdatasync(fd)
        out.append((time.perf_counter() - t) * 1e3)
    return statistics.median(out)
res = {float(p) / 1000: [] for p in (sys.argv[2:] or ["0", "1", "4"])}
for rep in range(3):
    for p in res: res[p].append(block(p))
for p, v in res.items(): print(f"pause {p*1e3:.1f} ms: median fdatasync {statistics.median(v):.3f} ms {['%.3f' % x for x in v]}")
os.close(fd); os.unlink(path)
