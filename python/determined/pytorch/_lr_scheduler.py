"""``LRScheduler``: a torch LR scheduler the harness steps for you (or not: MANUAL_STEP)."""

import enum


class LRScheduler:
    class StepMode(enum.Enum):
        STEP_EVERY_EPOCH = 1
        STEP_EVERY_BATCH = 2
        MANUAL_STEP = 3
        STEP_EVERY_OPTIMIZER_STEP = 4

    def __init__(self, scheduler, step_mode, frequency=1):
        if not isinstance(step_mode, LRScheduler.StepMode):
            raise TypeError(f"step_mode must be an LRScheduler.StepMode, got {step_mode!r}")
        if not isinstance(frequency, int) or frequency < 1:
            raise ValueError(f"frequency must be a positive integer, got {frequency!r}")
        self._scheduler = scheduler
        self._step_mode = step_mode
        self._frequency = frequency

    def step(self, *args, **kwargs):
        self._scheduler.step(*args, **kwargs)

    def get_last_lr(self):
        return self._scheduler.get_last_lr()

    def state_dict(self):
        return self._scheduler.state_dict()

    def load_state_dict(self, state_dict):
        self._scheduler.load_state_dict(state_dict)

    def __getattr__(self, name):
        # Anything else the user calls goes to the torch scheduler.
        if name == "_scheduler":
            raise AttributeError(name)
        return getattr(self._scheduler, name)


def batches_to_step(step_mode, frequency, batch_idx, aggregation_frequency, epoch_len):
    """How many times the harness steps a scheduler after batch ``batch_idx`` (0-based), as
    Determined does: only on batches where the optimizer steps (every aggregation_frequency-th),
    counting every batch since the last such step for STEP_EVERY_BATCH, every optimizer step for
    STEP_EVERY_OPTIMIZER_STEP, and every epoch boundary crossed before the next optimizer step
    for STEP_EVERY_EPOCH."""
    if (batch_idx + 1) % aggregation_frequency != 0:
        return 0
    if step_mode == LRScheduler.StepMode.STEP_EVERY_BATCH:
        first = batch_idx - aggregation_frequency + 1
        return sum(1 for i in range(first, batch_idx + 1) if (i + 1) % frequency == 0)
    if step_mode == LRScheduler.StepMode.STEP_EVERY_OPTIMIZER_STEP:
        return int((batch_idx + 1) % frequency == 0)
    if step_mode == LRScheduler.StepMode.STEP_EVERY_EPOCH:
        epoch = batch_idx // epoch_len
        next_epoch = (batch_idx + aggregation_frequency) // epoch_len
        return sum(1 for e in range(epoch, next_epoch) if (e + 1) % frequency == 0)
    return 0
