"""The connection from a trial process to searcher-run: JSON lines over the stream socket whose
address is in HPSEARCH_CHANNEL ("unix:/path", "unix:@abstract", later "tcp:host:port"), opened
by a hello with the trial's token (HPSEARCH_TRIAL_TOKEN). Commands (validate_after, close,
pause) and replies to requests arrive on it; reports leave on it. See docs/runner.md.

A Slurm job outlives its runner, which may be resumed: with HPSEARCH_RECONNECT_SECONDS set, a
lost connection is opened again (with the same token) for that long before the trial gives up.
A runner sends the trial's commands again on a new connection; only a validate_after the trial
has not yet reported (one whose validation the old runner never read) is taken again."""

import json
import os
import select
import socket
import threading
import time

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
        self._address = address
        self._hello = {"type": "hello", "token": token, "rank": rank, "pid": os.getpid()}
        self._reconnect_seconds = float(os.environ.get("HPSEARCH_RECONNECT_SECONDS") or 0)
        self._lock = threading.RLock()
        self._buffer = b""
        self._commands = []
        self._replies = {}
        self._next_request = 1
        self._closed = False
        self._in_progress = None  # the length of the validate_after being worked on
        self._replayed = None  # the one a runner will send again (when it reconnected)
        self._longest = None  # the longest validate_after received
        self.stop_requested = False  # a pause or close has been seen
        self._sock = self._open()

    def _open(self):
        deadline = time.monotonic() + self._reconnect_seconds
        while True:
            try:
                sock = _connect(self._address)
                sock.sendall((util.json_encode(self._hello) + "\n").encode("utf-8"))
                return sock
            except OSError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(1)

    def _reconnect(self):
        """The runner went away: waits for a resumed one. False if none came in time."""
        if self._reconnect_seconds <= 0:
            return False
        with self._lock:
            self.close()
            try:
                self._sock = self._open()
            except OSError:
                return False
            self._buffer = b""
            self._replayed = self._in_progress
            return True

    def send(self, message):
        line = (util.json_encode(message) + "\n").encode("utf-8")
        with self._lock:
            if message.get("type") == "validation":
                self._in_progress = None
            try:
                self._sock.sendall(line)
            except OSError:
                if not self._reconnect():
                    raise
                self._sock.sendall(line)

    def _is_replayed(self, message):
        """A validate_after this trial already has, sent again by a resumed runner."""
        if message.get("op") != "validate_after":
            return False
        length = message.get("length")
        if self._longest is not None and length < self._longest:
            return True  # lengths only grow: an earlier one, done already
        if length == self._replayed:
            self._replayed = None
            return True
        if any(c.get("op") == "validate_after" and c.get("length") == length for c in self._commands):
            return True
        self._longest = length
        return False

    def _read(self, block):
        if self._closed:
            return
        if not block and not select.select([self._sock], [], [], 0)[0]:
            return
        try:
            chunk = self._sock.recv(65536)
        except OSError:
            chunk = b""
        if not chunk:
            if self._reconnect():
                return
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
            elif not self._is_replayed(message):
                if message.get("op") in ("pause", "close"):
                    self.stop_requested = True
                self._commands.append(message)

    def next_command(self):
        """The next command, waiting for it; None once the runner has gone."""
        while not self._commands and not self._closed:
            self._read(block=True)
        command = self._commands.pop(0) if self._commands else None
        if command is not None and command.get("op") == "validate_after":
            self._in_progress = command.get("length")
        return command

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
