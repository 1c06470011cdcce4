"""The Trainer API as a user writes it (Determined's docs): under searcher-run the searcher's
operations decide the length; as a plain `python3 trainer_script.py` it trains max_length."""
import logging

import determined as det
from determined import pytorch

from onevar_trial import OneVarTrial

if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    with pytorch.init(hparams={"lr": 0.01, "global_batch_size": 2}) as context:
        trial = OneVarTrial(context)
        trainer = pytorch.Trainer(trial, context)
        trainer.fit(max_length=pytorch.Batch(3), validation_period=pytorch.Batch(2), checkpoint_policy="all")
        print(f"final w {trial.model.weight.item():.6f}")
