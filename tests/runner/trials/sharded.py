"""Two processes of one trial store sharded checkpoints (store_path and upload with shard=True):
each rank writes its own file into the same checkpoint, the metadata of every rank is merged,
and the runner records it once. Run with resources.slots_per_trial: 2 through
determined.launch.torch_distributed; searcher.max_length {batches: 2}."""
import pathlib
import tempfile

import determined as det

distributed = det.core.DistributedContext.from_torch_distributed()
with det.core.init(distributed=distributed) as ctx:
    rank = distributed.rank
    for op in ctx.searcher.operations():
        with ctx.checkpoint.store_path({"steps_completed": op.length, f"rank{rank}": rank}, shard=True) as (path, sid):
            (path / f"shard-{rank}.txt").write_text(str(rank))
        source = pathlib.Path(tempfile.mkdtemp())
        (source / f"uploaded-{rank}.txt").write_text(str(rank))
        uploaded = ctx.checkpoint.upload(source, {"steps_completed": op.length, f"up{rank}": rank}, shard=True)
        if rank == 0:
            for storage_id, prefix, keys in ((sid, "shard", {"rank0", "rank1"}), (uploaded, "uploaded", {"up0", "up1"})):
                with ctx.checkpoint.restore_path(storage_id) as stored:
                    names = sorted(p.name for p in stored.iterdir() if p.name != "metadata.json")
                assert names == [f"{prefix}-0.txt", f"{prefix}-1.txt"], names
                assert keys <= set(ctx.checkpoint.get_metadata(storage_id)), ctx.checkpoint.get_metadata(storage_id)
            ctx.train.report_validation_metrics(op.length, {"loss": 1.0})
            op.report_completed(1.0)
print(f"sharded: rank {distributed.rank} ok")
