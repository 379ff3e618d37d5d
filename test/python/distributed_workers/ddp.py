"""One rank of test_distributed.py's DistributedDataParallel checks; each check asserts here, against a
model trained in this process on the whole batch (every rank can compute it)."""

import copy
import datetime

import ember
import ember.distributed as dist
import ember.nn as nn
import ember.nn.functional as F

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank, world = dist.get_rank(), dist.get_world_size()


def close(a, b, tol=1e-5):
    assert ember.allclose(a, b, rtol=tol, atol=tol), (a - b).abs().max().item()


def model_(seed=0):
    ember.manual_seed(seed + rank)  # different on every rank: DDP must make them rank 0's
    return nn.Sequential(nn.Linear(5, 16), nn.BatchNorm1d(16), nn.Tanh(), nn.Linear(16, 3))


def reference_of(ddp_model):
    """A plain copy of rank 0's initial model (taken right after DDP construction)."""
    return copy.deepcopy(ddp_model.module)


ember.manual_seed(1234)
data = [(ember.randn(8 * world, 5), ember.randint(0, 3, (8 * world,))) for _ in range(4)]

# 1. Training: parameters equal on every rank, and equal to full-batch training, for several bucket sizes.
for bucket_cap_mb, as_view in ((25, False), (0.0001, False), (0.0001, True)):
    ddp = nn.parallel.DistributedDataParallel(model_(), bucket_cap_mb=bucket_cap_mb, gradient_as_bucket_view=as_view)
    if bucket_cap_mb < 1:
        assert len(ddp._buckets) > 1
    reference = reference_of(ddp)
    opt = ember.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    ref_opt = ember.optim.SGD(reference.parameters(), lr=0.1, momentum=0.9)
    for x, y in data:
        part = slice(rank * 8, (rank + 1) * 8)
        opt.zero_grad()
        F.cross_entropy(ddp(x[part]), y[part]).backward()
        opt.step()
        ref_opt.zero_grad()
        # the reference: each replica's share through its own batch-norm statistics, averaged
        sum(F.cross_entropy(reference(x[r * 8:(r + 1) * 8]), y[r * 8:(r + 1) * 8]) for r in range(world)).div(
            world).backward()
        ref_opt.step()
        with ember.no_grad():  # DDP keeps rank 0's buffers: so does the reference
            for b, rb in zip(ddp.module.buffers(), reference.buffers()):
                rb.copy_(b)
    for p, rp in zip(ddp.module.parameters(), reference.parameters()):
        close(p, rp)
    flat = ember.cat([p.detach().reshape(-1) for p in ddp.module.parameters()])
    gathered = [ember.empty_like(flat) for _ in range(world)]
    dist.all_gather(gathered, flat)
    assert all(ember.equal(g, gathered[0]) for g in gathered), "replicas differ"

# 2. no_sync: gradients of the steps inside accumulate locally; the next synced step averages the total.
ddp = nn.parallel.DistributedDataParallel(nn.Linear(4, 2))
x = ember.full((3, 4), float(rank + 1))
with ddp.no_sync():
    ddp(x).sum().backward()
local = ddp.module.weight.grad.clone()
close(local, ember.full((2, 4), 3.0 * (rank + 1)))
ddp(x).sum().backward()
expected = sum(2 * 3.0 * (r + 1) for r in range(world)) / world
close(ddp.module.weight.grad, ember.full((2, 4), expected))


# 3. Unused parameters: an error at the next forward without find_unused_parameters, gradients with it.
class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.used, self.unused, self.sometimes = nn.Linear(3, 3), nn.Linear(3, 3), nn.Linear(3, 3)

    def forward(self, x, use_sometimes=False):
        y = self.used(x)
        return y + self.sometimes(x) if use_sometimes else y


ddp = nn.parallel.DistributedDataParallel(TwoHeads())
ddp(ember.ones(2, 3)).sum().backward()
try:
    ddp(ember.ones(2, 3))
    raise AssertionError("no error")
except RuntimeError as error:
    assert "find_unused_parameters=True" in str(error) and "Parameter indices which did not receive grad" in str(error)
# As torch: a parameter no rank used keeps its gradient (None after zero_grad), one some rank used gets the
# average over all ranks.
ddp = nn.parallel.DistributedDataParallel(TwoHeads(), find_unused_parameters=True)
for _ in range(2):
    ddp.zero_grad()
    ddp(ember.ones(2, 3) * (rank + 1), rank == 0).sum().backward()
close(ddp.module.used.bias.grad, ember.full((3,), 2.0))
assert ddp.module.unused.weight.grad is None
close(ddp.module.sometimes.bias.grad, ember.full((3,), 2.0 / world))
ddp.zero_grad(set_to_none=False)
ddp(ember.ones(2, 3)).sum().backward()
close(ddp.module.sometimes.bias.grad, ember.zeros(3))

# 4. state_dict keys as torch's ("module." prefix), and eval forward without gradients needs no sync.
ddp = nn.parallel.DistributedDataParallel(nn.Linear(2, 2))
assert sorted(ddp.state_dict()) == ["module.bias", "module.weight"]
with ember.no_grad():
    ddp(ember.ones(1, 2))
ddp(ember.ones(1, 2)).sum().backward()

# 5. Communication hooks: allreduce_hook trains as the built-in reduction does; the fp16/bf16 compression
# hooks give the averages to their precision; a custom hook sees each bucket (index, is_last, parameters)
# and its Future's value lands in the gradients; a second registration is refused.
from ember.distributed.algorithms.ddp_comm_hooks import default_hooks  # noqa: E402

for hook, tol in ((default_hooks.allreduce_hook, 1e-5), (default_hooks.fp16_compress_hook, 2e-3),
                  (default_hooks.bf16_compress_hook, 2e-2)):
    plain = nn.parallel.DistributedDataParallel(model_(), bucket_cap_mb=0.0001)
    hooked = nn.parallel.DistributedDataParallel(model_(), bucket_cap_mb=0.0001)
    hooked.register_comm_hook(None, hook)
    x, y = data[0]
    part = slice(rank * 8, (rank + 1) * 8)
    F.cross_entropy(plain(x[part]), y[part]).backward()
    F.cross_entropy(hooked(x[part]), y[part]).backward()
    for p, q in zip(plain.module.parameters(), hooked.module.parameters()):
        close(q.grad, p.grad, tol)
seen = []


def doubling_hook(state, bucket):
    seen.append((bucket.index(), bucket.is_last(), len(bucket.parameters()), len(bucket.gradients())))
    assert state == "state"
    fut = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
    return fut.then(lambda f: f.value()[0] * (2.0 / world))


plain = nn.parallel.DistributedDataParallel(model_(), bucket_cap_mb=0.0001)
hooked = nn.parallel.DistributedDataParallel(model_(), bucket_cap_mb=0.0001)
hooked.register_comm_hook("state", doubling_hook)
x, y = data[1]
part = slice(rank * 8, (rank + 1) * 8)
F.cross_entropy(plain(x[part]), y[part]).backward()
F.cross_entropy(hooked(x[part]), y[part]).backward()
for p, q in zip(plain.module.parameters(), hooked.module.parameters()):
    close(q.grad, 2 * p.grad)
assert [s[0] for s in seen] == list(range(len(hooked._buckets))) and seen[-1][1] and not seen[0][1]
assert sum(s[2] for s in seen) == len(list(hooked.module.parameters()))
try:
    hooked.register_comm_hook(None, default_hooks.allreduce_hook)
    raise AssertionError("a second hook was accepted")
except RuntimeError as error:
    assert "can only be called once" in str(error)

# 6. Uneven inputs under Join: rank r trains 3 + r steps; the ranks that finish early answer the others'
# collectives with zero gradients (averaged over the whole world), and at the end every rank holds the
# model of the rank that joined last, equal to the reference that knows every rank's steps.
from ember.distributed.algorithms import Join  # noqa: E402

ember.manual_seed(7)
inputs = [ember.randn(4, 5) for _ in range(3 + world - 1)]
ember.manual_seed(8)
base = nn.Linear(5, 2)


def uneven_training(join_context, divide_by_active):
    """Rank r trains 3 + r steps inside join_context(ddp); checks the result against the reference whose
    step i averages over the whole world, or (divide_by_active) over the ranks still training."""
    ddp = nn.parallel.DistributedDataParallel(copy.deepcopy(base), bucket_cap_mb=0.00001)
    reference = copy.deepcopy(base)
    opt = ember.optim.SGD(ddp.parameters(), lr=0.1)
    with join_context(ddp):
        for i in range(3 + rank):
            opt.zero_grad()
            ddp(inputs[i] * (rank + 1)).pow(2).sum().backward()
            opt.step()
    ref_opt = ember.optim.SGD(reference.parameters(), lr=0.1)
    for i in range(3 + world - 1):
        ref_opt.zero_grad()
        active = [r for r in range(world) if i < 3 + r]
        sum(reference(inputs[i] * (r + 1)).pow(2).sum() for r in active).div(
            len(active) if divide_by_active else world).backward()
        ref_opt.step()
    for p, rp in zip(ddp.module.parameters(), reference.parameters()):
        close(p, rp)
    return ddp


uneven_training(lambda ddp: Join([ddp]), divide_by_active=False)
# divide_by_initial_world_size=False: each iteration's average is over the ranks still training.
ddp = uneven_training(lambda ddp: ddp.join(divide_by_initial_world_size=False), divide_by_active=True)
try:
    with ddp.join(throw_on_early_termination=True):
        for i in range(1 + rank):
            ddp(inputs[i]).sum().backward()
    raise AssertionError("no rank raised")
except RuntimeError as error:
    assert ("exhausted all inputs" in str(error)) == (rank == 0), str(error)
    assert rank == 0 or "Detected at least one rank that exhausted inputs" in str(error), str(error)

# 7. static_graph: a layer reused by two reentrant checkpoints fires its gradient hook twice per backward
# and one layer is never used. The first backward counts the firings and reduces at its end; later ones
# reduce at each parameter's last firing: training equals the full-batch reference, the unused layer keeps
# no gradient. Without static_graph the second firing is torch's error.
from ember.utils.checkpoint import checkpoint  # noqa: E402


class SharedTwice(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(5, 5)
        self.unused = nn.Linear(5, 5)
        self.head = nn.Linear(5, 2)

    def forward(self, x):
        h = checkpoint(self.shared, x, use_reentrant=True).tanh()
        return self.head(checkpoint(self.shared, h, use_reentrant=True))


ember.manual_seed(9)
base = SharedTwice()
reference = copy.deepcopy(base)
ddp = nn.parallel.DistributedDataParallel(copy.deepcopy(base), static_graph=True, bucket_cap_mb=0.00001)
assert len(ddp._buckets) > 1
opt = ember.optim.SGD(ddp.parameters(), lr=0.1)
ref_opt = ember.optim.SGD(reference.parameters(), lr=0.1)
for x, _ in data[:3]:
    x = x.clone().requires_grad_()
    opt.zero_grad()
    ddp(x[rank * 8:(rank + 1) * 8]).pow(2).sum().backward()
    assert ddp.module.unused.weight.grad is None
    opt.step()
    ref_opt.zero_grad()
    sum(reference(x[r * 8:(r + 1) * 8]).pow(2).sum() for r in range(world)).div(world).backward()
    ref_opt.step()
assert ddp._hook_counts[id(ddp.module.shared.weight)] == 2 and ddp._hook_counts[id(ddp.module.unused.weight)] == 0
for p, rp in zip(ddp.module.parameters(), reference.parameters()):
    close(p, rp)
plain = nn.parallel.DistributedDataParallel(copy.deepcopy(base), find_unused_parameters=True)
try:
    plain(data[0][0][:8].clone().requires_grad_()).sum().backward()
    raise AssertionError("a gradient accumulated twice was reduced")
except RuntimeError as error:
    assert "Expected to mark a variable ready only once" in str(error), str(error)
# A second backward without a new forward is not synchronized (its hooks come after the reduction), as torch.
plain = nn.parallel.DistributedDataParallel(nn.Linear(5, 2))
loss = plain(data[0][0][:8]).sum()
loss.backward(retain_graph=True)
loss.backward()

dist.barrier()
dist.destroy_process_group()
print(f"rank {rank}: ddp checks passed", flush=True)
