"""The connection from a trial process to searcher-run: JSON lines over the stream socket whose
address is in HPSEARCH_CHANNEL ("unix:/path", "unix:@abstract", later "tcp:host:port"), opened
by a hello with the trial's token (HPSEARCH_TRIAL_TOKEN). Commands (validate_after, close,
pause) and replies to requests arrive on it; reports leave on it. See docs/runner.md."""

import json
import os
import select
import socket
import threading

from determined import util


def _connect(address):
    if address.startswith("unix:"):
        path = address[len("unix:"):]
        if path.startswith("@"):
            path = "\0" + path[1:]
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
        return sock
    if address.startswith("tcp:"):
        host, port = address[len("tcp:"):].rsplit(":", 1)
        return socket.create_connection((host, int(port)))
    raise RuntimeError(f"HPSEARCH_CHANNEL: unknown address {address!r} (expected unix:PATH or tcp:HOST:PORT)")


class Channel:
    """One connection to the runner. Thread-safe for sending; commands are read into a queue
    so that a non-blocking look (should_preempt) never loses one."""

    def __init__(self, address, token, rank):
        self._sock = _connect(address)
        self._lock = threading.Lock()
        self._buffer = b""
        self._commands = []
        self._replies = {}
        self._next_request = 1
        self._closed = False
        self.stop_requested = False  # a pause or close has been seen
        self.send({"type": "hello", "token": token, "rank": rank, "pid": os.getpid()})

    def send(self, message):
        line = (util.json_encode(message) + "\n").encode("utf-8")
        with self._lock:
            self._sock.sendall(line)

    def _read(self, block):
        if self._closed:
            return
        if not block and not select.select([self._sock], [], [], 0)[0]:
            return
        chunk = self._sock.recv(65536)
        if not chunk:
            self._closed = True  # the runner went away
            self.stop_requested = True
            return
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            if not line.strip():
                continue
            message = json.loads(line)
            if "reply" in message:
                self._replies[message["reply"]] = message
            elif "error" in message:
                raise RuntimeError(f"searcher-run refused this trial's connection: {message['error']}")
            else:
                if message.get("op") in ("pause", "close"):
                    self.stop_requested = True
                self._commands.append(message)

    def next_command(self):
        """The next command, waiting for it; None once the runner has gone."""
        while not self._commands and not self._closed:
            self._read(block=True)
        return self._commands.pop(0) if self._commands else None

    def poll(self):
        """Takes in whatever has arrived, without waiting."""
        self._read(block=False)

    def request(self, what, **fields):
        """Asks the runner something and waits for its answer."""
        with self._lock:
            request_id = self._next_request
            self._next_request += 1
        self.send({"type": "request", "id": request_id, "what": what, **fields})
        while request_id not in self._replies:
            if self._closed:
                raise RuntimeError("searcher-run went away")
            self._read(block=True)
        return self._replies.pop(request_id)

    def close(self):
        try:
            self._sock.close()
        except OSError:
            pass


_channel = None


def get(rank=0):
    """This process's channel to the runner (opened once), or None outside searcher-run."""
    global _channel
    if _channel is None and os.environ.get("HPSEARCH_CHANNEL"):
        _channel = Channel(os.environ["HPSEARCH_CHANNEL"], os.environ.get("HPSEARCH_TRIAL_TOKEN", ""), rank)
    return _channel
