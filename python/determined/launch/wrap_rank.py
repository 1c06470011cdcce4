"""``python3 -m determined.launch.wrap_rank RANK [--] COMMAND...``: runs COMMAND with every line
of its output prefixed by ``[rank=RANK] ``, and exits as it does."""

import os
import subprocess
import sys
import threading


def _copy(source, sink, prefix):
    for line in iter(source.readline, b""):
        sink.write(prefix + line)
        sink.flush()


def main(argv):
    if len(argv) < 2:
        print("usage: python3 -m determined.launch.wrap_rank RANK [--] COMMAND...", file=sys.stderr)
        return 2
    rank, command = argv[0], argv[1:]
    if os.environ.get("HPSEARCH_WRAP_RANK_FROM_ENV") == "1" and "RANK" in os.environ:
        rank = os.environ["RANK"]  # under torchrun, which sets RANK per worker
    if command and command[0] == "--":
        command = command[1:]
    prefix = f"[rank={rank}] ".encode()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    threads = [threading.Thread(target=_copy, args=(process.stdout, sys.stdout.buffer, prefix)),
               threading.Thread(target=_copy, args=(process.stderr, sys.stderr.buffer, prefix))]
    for t in threads:
        t.start()
    code = process.wait()
    for t in threads:
        t.join()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
