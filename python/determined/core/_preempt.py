"""Preemption: the runner pausing the trial (Ctrl-C, or nothing to do for now) or, when the
metrics drive the search, the searcher stopping it."""

import enum


class PreemptMode(enum.Enum):
    WorkersAskChief = "WORKERS_ASK_CHIEF"
    ChiefOnly = "CHIEF_ONLY"
    WorkersAskMaster = "WORKERS_ASK_MASTER"


class PreemptContext:
    def __init__(self, dist, channel=None, preempt_mode=PreemptMode.WorkersAskChief):
        self._dist = dist
        self._channel = channel
        self._mode = PreemptMode(preempt_mode)
        self._acknowledged = False

    def _ask_runner(self):
        if self._channel is None:
            return False
        self._channel.poll()
        return self._channel.stop_requested

    def should_preempt(self, auto_ack=True):
        """True once the trial should save and exit."""
        if self._mode == PreemptMode.WorkersAskMaster:
            answer = self._ask_runner()
        elif self._mode == PreemptMode.ChiefOnly:
            if self._dist.rank != 0:
                raise RuntimeError("should_preempt() with PreemptMode.ChiefOnly is for the chief only")
            answer = self._ask_runner()
        else:
            answer = self._dist.broadcast(self._ask_runner() if self._dist.rank == 0 else None)
        if answer and auto_ack:
            self.acknowledge_preemption_signal()
        return bool(answer)

    def acknowledge_preemption_signal(self):
        if self._channel is not None and not self._acknowledged:
            self._acknowledged = True
            self._channel.send({"type": "preemption_acknowledged"})
