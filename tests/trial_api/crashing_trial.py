"""RichTrial that kills its own process at batch ``crash_at`` (a hyperparameter; 0: never) on
its first launch, as a machine failure would: the runner restarts it from its latest checkpoint.
Each batch takes ``sleep`` seconds more (optional), so that a test can pause it midway."""
import os
import time

from rich_trial import RichTrial


class CrashingTrial(RichTrial):
    def train_batch(self, batch, epoch_idx, batch_idx):
        crash_at = self.context.get_hparam("crash_at")
        if crash_at and batch_idx == crash_at and os.environ.get("HPSEARCH_TRIAL_RUN_ID") == "1":
            os._exit(9)
        time.sleep(self.context.get_hparams().get("sleep", 0))
        return super().train_batch(batch, epoch_idx, batch_idx)
