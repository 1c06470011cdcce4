"""DistributedContext: ranks, and gather/allgather/broadcast between the processes of a trial.

The chief (rank 0) serves each group: all ranks (over TCP at chief_ip when the trial spans
machines, else over a Unix socket in Linux's abstract namespace named after the trial's
token), and the ranks of each machine (over a local Unix socket). Workers connect on first
use and retry until the chief is listening. Messages are length-prefixed pickles."""

import hashlib
import os
import pickle
import socket
import struct
import time

_CONNECT_TIMEOUT = 600.0  # seconds a worker waits for its chief to listen


def _send(sock, obj):
    data = pickle.dumps(obj)
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _recv_exact(sock, n):
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise ConnectionError("a process of the trial closed its connection")
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _recv(sock):
    (length,) = struct.unpack("!Q", _recv_exact(sock, 8))
    return pickle.loads(_recv_exact(sock, length))


class _Group:
    """One chief and its members, connected lazily."""

    def __init__(self, index, size, family, address):
        self._index = index  # 0 is the chief
        self._size = size
        self._family = family
        self._address = address
        self._peers = None  # chief: sockets of members 1..size-1 in order; member: [chief]

    def _connect(self):
        if self._peers is not None:
            return
        if self._index == 0:
            server = socket.socket(self._family, socket.SOCK_STREAM)
            if self._family == socket.AF_INET:
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            server.bind(self._address)
            server.listen(self._size)
            peers = {}
            while len(peers) < self._size - 1:
                conn, _ = server.accept()
                peers[_recv(conn)] = conn
            server.close()
            self._peers = [peers[i] for i in range(1, self._size)]
        else:
            deadline = time.monotonic() + _CONNECT_TIMEOUT
            while True:
                sock = socket.socket(self._family, socket.SOCK_STREAM)
                try:
                    sock.connect(self._address)
                    break
                except OSError:
                    sock.close()
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"rank {self._index}: the chief never listened at {self._address!r}")
                    time.sleep(0.05)
            _send(sock, self._index)
            self._peers = [sock]

    def gather(self, stuff):
        if self._size == 1:
            return [stuff]
        self._connect()
        if self._index == 0:
            return [stuff] + [_recv(peer) for peer in self._peers]
        _send(self._peers[0], stuff)
        return None

    def broadcast(self, stuff):
        if self._size == 1:
            return stuff
        self._connect()
        if self._index == 0:
            for peer in self._peers:
                _send(peer, stuff)
            return stuff
        return _recv(self._peers[0])

    def allgather(self, stuff):
        return self.broadcast(self.gather(stuff))

    def close(self):
        for peer in self._peers or []:
            peer.close()
        self._peers = None


def _abstract_name(kind, port):
    # Unique per trial launch (the token), and per port like Determined's pub/pull ports.
    token = os.environ.get("HPSEARCH_TRIAL_TOKEN") or os.environ.get("HPSEARCH_TRIAL_DIR") or str(os.getppid())
    digest = hashlib.sha256(token.encode()).hexdigest()[:24]
    return f"\0hpsearch-{kind}-{digest}-{port}"


class DistributedContext:
    """Ranks and collectives of the processes of one trial (see the Core API reference)."""

    def __init__(self, *, rank, size, local_rank, local_size, cross_rank, cross_size,
                 chief_ip=None, pub_port=12360, pull_port=12376, port_offset=0, force_tcp=False):
        if cross_size > 1 and chief_ip is None:
            raise AssertionError("chief_ip must be provided when cross_size > 1")
        self.rank = rank
        self.size = size
        self.local_rank = local_rank
        self.local_size = local_size
        self.cross_rank = cross_rank
        self.cross_size = cross_size
        self._chief_ip = chief_ip
        port = pub_port + port_offset
        if cross_size > 1 or force_tcp:
            self._all = _Group(rank, size, socket.AF_INET, (chief_ip or "127.0.0.1", port))
        else:
            self._all = _Group(rank, size, socket.AF_UNIX, _abstract_name("all", port))
        self._local = _Group(local_rank, local_size, socket.AF_UNIX,
                             _abstract_name(f"local{cross_rank}", pull_port + port_offset))

    @classmethod
    def from_torch_distributed(cls, chief_ip=None):
        """Ranks from torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
        GROUP_RANK)."""
        size = int(os.environ["WORLD_SIZE"])
        local_size = int(os.environ["LOCAL_WORLD_SIZE"])
        return cls(rank=int(os.environ["RANK"]), size=size, local_rank=int(os.environ["LOCAL_RANK"]),
                   local_size=local_size, cross_rank=int(os.environ.get("GROUP_RANK", "0")),
                   cross_size=size // local_size, chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP"))

    @classmethod
    def from_horovod(cls, hvd, chief_ip=None):
        return cls(rank=hvd.rank(), size=hvd.size(), local_rank=hvd.local_rank(), local_size=hvd.local_size(),
                   cross_rank=hvd.cross_rank(), cross_size=hvd.cross_size(),
                   chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP"))

    @classmethod
    def from_deepspeed(cls, chief_ip=None):
        size = int(os.environ["WORLD_SIZE"])
        local_size = int(os.environ["LOCAL_SIZE"])
        return cls(rank=int(os.environ["RANK"]), size=size, local_rank=int(os.environ["LOCAL_RANK"]),
                   local_size=local_size, cross_rank=int(os.environ.get("CROSS_RANK", "0")),
                   cross_size=int(os.environ.get("CROSS_SIZE", str(size // local_size))),
                   chief_ip=chief_ip or os.environ.get("DET_CHIEF_IP"))

    def get_rank(self):
        return self.rank

    def get_local_rank(self):
        return self.local_rank

    def get_size(self):
        return self.size

    def get_local_size(self):
        return self.local_size

    def get_cross_rank(self):
        return self.cross_rank

    def get_cross_size(self):
        return self.cross_size

    def get_num_agents(self):
        return self.cross_size

    def gather(self, stuff):
        """The chief gets a list of every rank's stuff (in rank order); workers get None."""
        return self._all.gather(stuff)

    def gather_local(self, stuff):
        return self._local.gather(stuff)

    def allgather(self, stuff):
        return self._all.allgather(stuff)

    def allgather_local(self, stuff):
        return self._local.allgather(stuff)

    def broadcast(self, stuff):
        return self._all.broadcast(stuff)

    def broadcast_local(self, stuff=None):
        return self._local.broadcast(stuff)

    def close(self):
        self._all.close()
        self._local.close()


class DummyDistributedContext(DistributedContext):
    """One process: rank 0 of 1."""

    def __init__(self):
        super().__init__(rank=0, size=1, local_rank=0, local_size=1, cross_rank=0, cross_size=1)
