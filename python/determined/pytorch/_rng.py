"""The global random number generators a trial's code draws from (torch's CPU generator, numpy's
and Python's), read and set as one state: a checkpoint's ``rng_state`` (Determined's keys)."""

import random

import numpy as np
import torch


def rng_state():
    return {"cpu_rng_state": torch.random.get_rng_state(), "np_rng_state": np.random.get_state(),
            "random_rng_state": random.getstate()}


def set_rng_state(state):
    np.random.set_state(state["np_rng_state"])
    random.setstate(state["random_rng_state"])
    torch.random.set_rng_state(state["cpu_rng_state"])
