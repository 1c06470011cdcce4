"""A trial that uses every member of the Core API reference that searcher-run serves and
checks each answer (an AssertionError fails the trial); the test then checks what reached the
runner. Configured with searcher.max_length {batches: 4}."""
import pathlib
import tempfile

import determined as det
from determined import core

info = det.get_cluster_info()
assert det.LOG_FORMAT and issubclass(det.InvalidHP, Exception)
for enum, member in ((core.PreemptMode, "WorkersAskMaster"), (core.SearcherMode, "ChiefOnly"),
                     (core.DownloadMode, "NoSharedDownload"), (core.EarlyExitReason, "INVALID_HP"),
                     (core.TensorboardMode, "MANUAL")):
    assert hasattr(enum, member), (enum, member)
assert info.trial.trial_id == 1 and isinstance(info.trial.experiment_id, int)
assert info.trial.hparams == {"x": 0.5}, info.trial.hparams
assert info.trial._config["searcher"]["metric"] == "loss", info.trial._config
assert info.trial.trial_run_id == 1 and info.latest_checkpoint is None
assert info.container_rank == 0 and info.slot_ids == [0]

with det.core.init(preempt_mode=core.PreemptMode.ChiefOnly, tensorboard_mode=core.TensorboardMode.MANUAL) as ctx:
    dist = ctx.distributed
    assert (dist.get_rank(), dist.get_size(), dist.get_local_rank(), dist.get_local_size(),
            dist.get_cross_rank(), dist.get_num_agents()) == (0, 1, 0, 1, 0, 1)
    assert dist.gather(1) == [1] and dist.allgather(2) == [2] and dist.broadcast(3) == 3
    assert dist.gather_local(4) == [4] and dist.allgather_local(5) == [5] and dist.broadcast_local(6) == 6
    ctx.profiler.on()
    ctx.profiler.off()
    assert ctx.searcher.get_configured_units() == core.Unit.BATCHES
    assert ctx.train.get_experiment_best_validation() is None

    # Checkpoints: upload a directory, read its metadata, download it, delete it.
    source = pathlib.Path(tempfile.mkdtemp())
    (source / "weights.txt").write_text("0.5")
    (source / "skipped.txt").write_text("not uploaded")
    uploaded = ctx.checkpoint.upload(source, {"steps_completed": 0, "note": "uploaded"},
                                     selector=lambda name: name != "skipped.txt")
    assert ctx.checkpoint.get_metadata(uploaded)["note"] == "uploaded"
    target = pathlib.Path(tempfile.mkdtemp()) / "copy"
    ctx.checkpoint.download(uploaded, target, download_mode=core.DownloadMode.NoSharedDownload)
    assert (target / "weights.txt").read_text() == "0.5" and not (target / "skipped.txt").exists()
    with ctx.checkpoint.restore_path(uploaded) as path:
        assert (path / "weights.txt").read_text() == "0.5"
    ctx.checkpoint.delete(uploaded)
    # Upload and delete at once, many times: the runner must take each checkpoint's report before
    # its files go (a runner that read the report after the delete refused it as missing).
    for k in range(200):
        again = ctx.checkpoint.upload(source, {"steps_completed": 0, "k": k})
        ctx.checkpoint.delete(again)
    try:
        with ctx.checkpoint.restore_path(uploaded):
            raise AssertionError("a deleted checkpoint can still be restored")
    except FileNotFoundError:
        pass

    ctx.train.set_status("members: training")
    tensorboard = ctx.train.get_tensorboard_path()
    assert tensorboard.is_dir()
    ctx.train.upload_tensorboard_files()
    for op in ctx.searcher.operations(searcher_mode=core.SearcherMode.ChiefOnly):
        assert op.length == 4, op.length
        for batch in range(1, op.length + 1):
            ctx.train.report_training_metrics(steps_completed=batch, metrics={"loss": 1.0 / batch})
            ctx.train.report_progress(batch / op.length)
            assert not ctx.preempt.should_preempt(auto_ack=False)
        ctx.train.report_metrics("custom", op.length, {"answer": 42})
        with ctx.checkpoint.store_path({"steps_completed": op.length}) as (path, storage_id):
            (path / "state.txt").write_text("4")
        ctx.train.report_validation_metrics(op.length, {"loss": 0.25})
        op.report_completed(searcher_metric=0.25)
        # The runner takes the reports of a connection in order: the validation is known now.
        assert ctx.train.get_experiment_best_validation() == 0.25
    ctx.searcher.acknowledge_out_of_ops()
print("members: ok")
