#!/usr/bin/python3
"""Derives the expected trials of tests/methods/pbt_test.cpp's population-of-4 scenario from
the spec's draw rules alone (docs: determined-searcher.md 1.1-1.4, 3.10, 4.2), with numpy's
legacy RandomState as Determined's generator (nprand is a bit-exact clone of it). It shares no
code with hpsearch. Writes population4.json:

    /usr/bin/python3 tests/golden/pbt/derive.py > tests/golden/pbt/population4.json

The scenario's structure is derived by hand in the test (which trial closes, which is cloned
from whom, in which order); this script only replays the random stream in that order:
4 initial creates (sample, id, seed), then at the end of round 1 the clones of t1 and t3 (the
two best), at the end of round 2 the clones of t5 and t3 (explore, id, seed each).
"""
import json
import math
import uuid

import numpy as np

SEED = 7
RESAMPLE = 0.5
PERTURB = 0.2
SPACE = [("a", ("int", 1, 10)), ("x", ("double", 0.0, 1.0))]  # sorted by name


class GoRng:
    def __init__(self, seed):
        self.rs = np.random.RandomState(seed)

    def bits32(self):
        return int(self.rs.randint(0, 2**32, dtype=np.uint64))

    def unit_interval(self):
        a = self.bits32() >> 5
        b = self.bits32() >> 6
        return (a * 67108864.0 + b) / 9007199254740992.0

    def bits_limit(self, limit):
        if limit == 0:
            return 0
        mask = (1 << limit.bit_length()) - 1
        while True:
            v = self.bits32() & mask
            if v <= limit:
                return v

    def request_id(self):
        b = bytearray()
        for _ in range(4):
            b += self.bits32().to_bytes(4, "little")
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        return str(uuid.UUID(bytes=bytes(b)))

    def trial_seed(self):
        return self.bits32() & 0x7FFFFFFF


def sample_one(rng, hp):
    kind, lo, hi = hp
    if kind == "int":
        return lo + rng.bits_limit(hi - lo)
    return lo + (hi - lo) * rng.unit_interval()


def explore(rng, params, how):
    out = {}
    for name, hp in SPACE:
        if rng.unit_interval() < RESAMPLE:
            out[name] = sample_one(rng, hp)
            how[name] = "resampled"
            continue
        decrease = rng.unit_interval() < 0.5
        m = 1 - PERTURB if decrease else 1 + PERTURB
        how[name] = "decreased" if decrease else "increased"
        kind, lo, hi = hp
        if kind == "int":
            v = math.floor(params[name] * m) if decrease else math.ceil(params[name] * m)
        else:
            v = params[name] * m
        out[name] = min(max(v, lo), hi)
    return out


def main():
    # The spec's golden values (1.1) check that numpy gives Determined's stream.
    check = GoRng(0)
    assert [check.bits32() for _ in range(3)] == [2357136044, 2546248239, 3071714933]
    rng = GoRng(SEED)
    trials = []

    def create(params, parent, how=None):
        trials.append({"hparams": params, "request_id": rng.request_id(),
                       "trial_seed": rng.trial_seed(), "parent": parent, "explored": how})

    def clone(parent):
        how = {}
        params = explore(rng, trials[parent]["hparams"], how)
        create(params, parent, how)

    for _ in range(4):
        create({name: sample_one(rng, hp) for name, hp in SPACE}, None)
    for parent in (1, 3):  # round 1: t1 then t3 rank best
        clone(parent)
    for parent in (5, 3):  # round 2: t5 then t3 rank best
        clone(parent)
    print(json.dumps({"seed": SEED, "trials": trials}, indent=1))


main()
