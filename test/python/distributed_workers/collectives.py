"""One rank of test_distributed.py's collective run: every collective on every dtype, results saved to
<out>/rank<r>.pt for the test to compare with a single-process reference."""

import sys

import numpy as np

import ember
import ember.distributed as dist

sys.path.insert(0, __file__.rsplit("/", 2)[0])
from distributed_reference import DTYPES, OPS, make  # noqa: E402

out = sys.argv[1]
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
results = {}
for dtype in DTYPES:
    x = make(dtype, rank)
    for op in OPS[dtype]:
        y = x.clone()
        dist.all_reduce(y, op=getattr(dist.ReduceOp, op))
        results[f"all_reduce/{dtype}/{op}"] = y
    y = x.clone()
    dist.reduce(y, dst=world - 1, op=dist.ReduceOp.SUM if dtype != "bool" else dist.ReduceOp.MAX)
    if rank == world - 1:
        results[f"reduce/{dtype}"] = y
    y = x.clone()
    dist.broadcast(y, src=world - 1)
    results[f"broadcast/{dtype}"] = y
    gathered = [ember.empty_like(x) for _ in range(world)]
    dist.all_gather(gathered, x)
    results[f"all_gather/{dtype}"] = ember.stack(gathered)
    flat = ember.empty((world,) + tuple(x.shape), dtype=x.dtype)
    dist.all_gather_into_tensor(flat, x)
    results[f"all_gather_into_tensor/{dtype}"] = flat
    gather_list = [ember.empty_like(x) for _ in range(world)] if rank == 0 else None
    dist.gather(x, gather_list, dst=0)
    if rank == 0:
        results[f"gather/{dtype}"] = ember.stack(gather_list)
    piece = ember.empty_like(x)
    dist.scatter(piece, [make(dtype, 100 + r) for r in range(world)] if rank == 1 else None, src=1)
    results[f"scatter/{dtype}"] = piece
    chunks_in = ember.cat([make(dtype, 10 * rank + r) for r in range(world)])
    chunks_out = ember.empty_like(chunks_in)
    dist.all_to_all_single(chunks_out, chunks_in)
    results[f"all_to_all_single/{dtype}"] = chunks_out
    if dtype not in ("bool",):
        rs = ember.empty_like(x)
        dist.reduce_scatter_tensor(rs, ember.cat([make(dtype, 10 * rank + r) for r in range(world)]))
        results[f"reduce_scatter_tensor/{dtype}"] = rs

# uneven all-to-all: rank s sends r + 1 rows of width 2 to rank r, rows valued 10 s + r
sizes_in = [r + 1 for r in range(world)]
sizes_out = [rank + 1] * world
rows_in = ember.cat([ember.full((r + 1, 2), float(10 * rank + r)) for r in range(world)])
rows_out = ember.empty(sum(sizes_out), 2)
dist.all_to_all_single(rows_out, rows_in, sizes_out, sizes_in)
results["all_to_all_single_uneven"] = rows_out
pieces_out = [ember.empty(rank + 1) for _ in range(world)]
dist.all_to_all(pieces_out, [ember.full((r + 1,), float(10 * rank + r), dtype=ember.float64).float()
                             for r in range(world)])
results["all_to_all_uneven"] = ember.cat(pieces_out)
# receive from any source: rank 0 takes one message from every other rank, in whatever order they come
if rank == 0:
    senders = []
    for _ in range(world - 1):
        box = ember.empty(1)
        senders.append(dist.recv(box, tag=7))
        assert box.item() == 100.0 + senders[-1], (box, senders)
    assert sorted(senders) == list(range(1, world)), senders
else:
    dist.send(ember.tensor([100.0 + rank]), dst=0, tag=7)

# async handles, in issue order
works = [dist.all_reduce(ember.full((3,), float(rank + i)), async_op=True) for i in range(3)]
assert all(w.wait() for w in works) and all(w.is_completed() for w in works)
# point to point: a ring, posted together
send = ember.full((4,), float(rank))
recv = ember.empty(4)
requests = dist.batch_isend_irecv([dist.P2POp(dist.isend, send, (rank + 1) % world),
                                   dist.P2POp(dist.irecv, recv, (rank - 1) % world)])
for request in requests:
    request.wait()
results["ring"] = recv
# a group of the even ranks
evens = dist.new_group([r for r in range(world) if r % 2 == 0])
if rank % 2 == 0:
    y = ember.tensor([float(rank)])
    dist.all_reduce(y, group=evens)
    results["even_group"] = y
    assert dist.get_rank(evens) == rank // 2 and dist.get_world_size(evens) == (world + 1) // 2
else:
    assert evens is dist.GroupMember.NON_GROUP_MEMBER
# objects
objects = [None] * world
dist.all_gather_object(objects, {"rank": rank, "name": f"r{rank}", "values": [rank] * rank})
assert objects == [{"rank": r, "name": f"r{r}", "values": [r] * r} for r in range(world)], objects
shared = [{"lr": 0.1 * (rank + 1)}, "text"] if rank == 0 else [None, None]
dist.broadcast_object_list(shared, src=0)
assert shared == [{"lr": 0.1}, "text"], shared
dist.barrier()
ember.save({k: v for k, v in results.items()}, f"{out}/rank{rank}.pt")
dist.destroy_process_group()
