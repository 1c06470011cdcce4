"""Core API, step 4: several processes per trial (resources.slots_per_trial). A launcher
(determined.launch.torch_distributed) starts one worker per slot; each trains on its own shard
of the data, the chief gathers the shards' losses, and only the chief reports and checkpoints.
Every worker follows the same searcher operations and preemption decisions."""
import json
import logging

import determined as det


def shard_loss(x, rank, size):
    # Each worker "evaluates" its share of 12 examples; the losses add up across the workers.
    return sum((1.0 - x * (1 + i / 100)) ** 2 for i in range(rank, 12, size))


def main(core_context, info):
    dist = core_context.distributed
    hparams = info.trial.hparams
    logging.info(f"worker {dist.rank} of {dist.size} (local {dist.local_rank} of {dist.local_size})")
    batch, x = 0, 0.0
    if info.latest_checkpoint is not None:
        with core_context.checkpoint.restore_path(info.latest_checkpoint) as path:
            state = json.loads((path / "state.json").read_text())
        batch, x = state["batch"], state["x"]

    for op in core_context.searcher.operations():
        while batch < op.length:
            x += hparams["learning_rate"] * (1.0 - x)
            batch += 1
        losses = dist.allgather(shard_loss(x, dist.rank, dist.size))  # every worker gets every shard's
        loss = sum(losses) / 12
        if dist.rank == 0:
            core_context.train.report_validation_metrics(
                steps_completed=batch, metrics={"validation_loss": loss, "workers": len(losses)})
            with core_context.checkpoint.store_path({"steps_completed": batch}) as (path, _):
                (path / "state.json").write_text(json.dumps({"batch": batch, "x": x}))
            op.report_completed(loss)
        if core_context.preempt.should_preempt():
            return


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format=det.LOG_FORMAT)
    info = det.get_cluster_info()
    assert info is not None, "this example runs as a trial of a search (searcher-run, or a Determined cluster)"
    distributed = det.core.DistributedContext.from_torch_distributed()
    with det.core.init(distributed=distributed) as core_context:
        main(core_context, info)
