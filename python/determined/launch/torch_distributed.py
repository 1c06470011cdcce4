"""``python3 -m determined.launch.torch_distributed [--trust] [--] COMMAND...``: runs COMMAND
once per slot of the trial (``resources.slots_per_trial``) through torchrun
(``torch.distributed.run``, from Debian's python3-torch), which sets RANK, WORLD_SIZE,
LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR and MASTER_PORT for each, so that
``det.core.DistributedContext.from_torch_distributed()`` works. Each worker's output lines are
prefixed with its rank. Run it with an interpreter that has torch (Debian: /usr/bin/python3)."""

import os
import socket
import sys


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv):
    while argv and argv[0] in ("--trust",):
        argv = argv[1:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print("usage: python3 -m determined.launch.torch_distributed [--] COMMAND...", file=sys.stderr)
        return 2
    try:
        import torch.distributed.run  # noqa: F401  (checked here for a clear message)
    except ImportError:
        print(f"determined.launch.torch_distributed: {sys.executable} cannot import torch; "
              "run the launcher with a Python that has it (Debian's python3-torch: /usr/bin/python3)",
              file=sys.stderr)
        return 1
    if argv[0].endswith(".py"):
        argv = [sys.executable] + argv
    slots = int(os.environ.get("HPSEARCH_SLOTS_PER_TRIAL", "1"))
    command = [sys.executable, "-m", "torch.distributed.run", "--nnodes=1", f"--nproc_per_node={slots}",
               "--node_rank=0", "--master_addr=127.0.0.1", f"--master_port={_free_port()}",
               "--no_python", sys.executable, "-m", "determined.launch.wrap_rank", "env"]
    # torchrun gives each worker the same command: wrap_rank takes the rank from RANK.
    os.environ["HPSEARCH_WRAP_RANK_FROM_ENV"] = "1"
    os.execv(sys.executable, command + ["--"] + argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
