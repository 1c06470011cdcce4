"""``python3 -m determined.launch.torch_distributed [--trust] [--] COMMAND...``  (or ``--trial
MODULE:CLASS``, Determined's legacy form: the Trial harness, docs/trial-api.md): runs COMMAND
once per slot of the trial (``resources.slots_per_trial``) through torchrun
(``torch.distributed.run``, from Debian's python3-torch, run in this process), which sets RANK, WORLD_SIZE,
LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR and MASTER_PORT for each, so that
``det.core.DistributedContext.from_torch_distributed()`` works. Each worker's output lines are
prefixed with its rank.

Run by a Python without torch, it starts the workers itself (the plain launcher, standard
library only) with the same environment, so a script that needs only det's DistributedContext
runs as well; the first worker to fail stops the others and sets the exit status."""

import os
import signal
import socket
import subprocess
import sys
import time


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv):
    while argv and argv[0] in ("--trust",):
        argv = argv[1:]
    if argv and argv[0] == "--trial":
        # Determined's legacy form: each worker runs the Trial harness on MODULE:CLASS.
        if len(argv) != 2:
            print("usage: python3 -m determined.launch.torch_distributed --trial MODULE:CLASS", file=sys.stderr)
            return 2
        argv = [sys.executable, "-m", "determined.exec.harness", argv[1]]
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("usage: python3 -m determined.launch.torch_distributed [--trial MODULE:CLASS | [--] COMMAND...]",
              file=sys.stderr)
        return 2
    if argv[0].endswith(".py"):
        argv = [sys.executable] + argv
    slots = int(os.environ.get("HPSEARCH_SLOTS_PER_TRIAL", "1"))
    try:
        import torch.distributed.run  # noqa: F401
    except ImportError:
        print(f"determined.launch.torch_distributed: {sys.executable} has no torch: starting the "
              f"{slots} workers with the plain launcher", file=sys.stderr, flush=True)
        return _plain(slots, argv)
    args = ["--nnodes=1", f"--nproc_per_node={slots}", "--node_rank=0", "--master_addr=127.0.0.1",
            f"--master_port={_free_port()}", "--no_python", sys.executable, "-m", "determined.launch.wrap_rank",
            "env", "--"] + argv
    # torchrun gives each worker the same command: wrap_rank takes the rank from RANK.
    os.environ["HPSEARCH_WRAP_RANK_FROM_ENV"] = "1"
    _fix_torchrun_std_flags()
    torch.distributed.run.main(args)
    return 0


def _fix_torchrun_std_flags():
    """Debian 12's torch 1.13 under Python 3.11: Std.from_str("0") (torchrun's default for
    --redirects and --tee) returns None, because 3.11 no longer iterates a Flag's zero member,
    and torchrun then fails before starting a worker. "0" means Std.NONE."""
    from torch.distributed.elastic.multiprocessing import api

    if api.Std.from_str("0") is not None:
        return
    original = api.Std.from_str.__func__

    def from_str(cls, value):
        return cls.NONE if value.strip() == "0" else original(cls, value)

    api.Std.from_str = classmethod(from_str)


def _plain(slots, argv):
    """torchrun's environment for each of `slots` workers on this machine, without torch."""
    port = _free_port()
    workers = []
    for rank in range(slots):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(slots), LOCAL_RANK=str(rank),
                   LOCAL_WORLD_SIZE=str(slots), GROUP_RANK="0", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port))
        workers.append(subprocess.Popen([sys.executable, "-m", "determined.launch.wrap_rank", str(rank), "--"]
                                        + argv, env=env))
    status = 0
    running = list(workers)
    while running:
        for worker in list(running):
            code = worker.poll()
            if code is None:
                continue
            running.remove(worker)
            if code != 0 and status == 0:
                status = code
                for other in running:
                    other.send_signal(signal.SIGTERM)
        time.sleep(0.05)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
