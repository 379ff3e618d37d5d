"""nn.parallel.DistributedDataParallel: one replica of the model per process, gradients averaged across
the process group during backward.

At construction every rank takes rank 0's parameters and buffers. Parameters are gathered, last first
(roughly the order backward produces their gradients), into buckets of at most bucket_cap_mb of one
dtype. A hook after each gradient's accumulation copies it into its bucket; a full bucket starts an
asynchronous all-reduce (a sum) on the group's worker thread while backward goes on, buckets always
in index order so that every rank issues the same collectives. The last gradient waits for the buckets
and writes the averages back, so when backward() returns, every rank holds the same gradients.

With static_graph=True the first backward only counts how often each gradient hook fires (a parameter
used in two reentrant checkpoints fires twice; an unused one never) and reduces everything once the
pass ends (an engine callback); later iterations reduce a parameter at its last firing, and the
parameters that never fire are ready from the start, without walking the graph.
"""

import contextlib

import ember
import ember.distributed as dist
from ember.distributed.algorithms.join import Join, Joinable, JoinHook, _JoinConfig

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_UNFINISHED = ("Expected to have finished reduction in the prior iteration before starting a new one. This error "
               "indicates that your module has parameters that were not used in producing loss. You can enable "
               "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
               "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
               "participate in calculating loss. Parameter indices which did not receive grad for rank {rank}: "
               "{indices}")


_GRAPH_CHANGED = ("Your training graph has changed in this iteration, e.g., one parameter is used in first "
                  "iteration, but then got unused in the second iteration. this is not compatible with "
                  "static_graph set to True.")

_READY_TWICE = ("Expected to mark a variable ready only once: the gradient of parameter {index} arrived after "
                "it had been reduced in this iteration (a parameter used outside forward, in several reentrant "
                "backward passes such as two checkpoints of the same layer, or inside a checkpoint that "
                "find_unused_parameters cannot see into). If the graph does not change "
                "between iterations, construct DistributedDataParallel with static_graph=True (or call "
                "_set_static_graph()).")

_FIRST_BUCKET_BYTES = 1 << 20


class _Bucket:
    """Parameters of one dtype whose gradients travel in one flat tensor."""

    def __init__(self, params):
        self.params = params
        self.offsets = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p.numel()
        self.flat = ember.zeros(total, dtype=params[0].dtype)
        self.pending = len(params)
        self.work = None

    def slot(self, i):
        p = self.params[i]
        return self.flat[self.offsets[i]:self.offsets[i] + p.numel()].view(p.shape)


def _coalesced_broadcast(tensors, group, src=0):
    """Group rank src's values into every rank's tensors, one broadcast per dtype."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    with ember.no_grad():
        for same in by_dtype.values():
            flat = ember.cat([t.detach().reshape(-1) for t in same])
            dist.broadcast(flat, src=dist.get_global_rank(group, src), group=group)
            dist._unflatten_into(flat, same)


class _DDPJoinHook(JoinHook):
    """While this rank has joined: each iteration the others run, the collectives of a forward and a
    backward with zero gradients (so the averages count this rank's share as zero, over the whole
    world size, as torch's default divide_by_initial_world_size does). Once all have joined: every rank
    takes the parameters and buffers of a rank that joined last, which took every step."""

    def __init__(self, ddp):
        self.ddp = ddp

    def main_hook(self):
        ddp = self.ddp
        group = ddp.process_group
        if ddp.broadcast_buffers:
            buffers = list(ddp.module.buffers())
            if buffers:
                _coalesced_broadcast(buffers, group)
        with ember.no_grad():
            for index, bucket in enumerate(ddp._buckets):
                bucket.flat.zero_()
                if ddp._comm_hook is None:
                    dist.all_reduce(bucket.flat, group=group)
                else:
                    state, hook = ddp._comm_hook
                    hook(state, dist.GradBucket(index, bucket.flat, bucket.params, bucket.offsets,
                                                index == len(ddp._buckets) - 1)).wait()
        if ddp._tracks_usage():
            dist.all_reduce(ember.zeros(len(ddp._params), dtype=ember.int32), group=group)

    def post_hook(self, is_last_joiner):
        ddp = self.ddp
        group = ddp.process_group
        source = ember.tensor([dist.get_rank(group) if is_last_joiner else -1])
        dist.all_reduce(source, op=dist.ReduceOp.MAX, group=group)
        _coalesced_broadcast(list(ddp.module.parameters()) + list(ddp.module.buffers()), group, int(source.item()))


class DistributedDataParallel(Module, Joinable):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, init_sync=True):
        super().__init__()
        group = dist._default_group(process_group)
        if device_ids is not None and any(d is not None for d in device_ids):
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters on CPU.")
        self.module = module
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        for p in params:
            if p.device.type != "cpu" or p.layout != ember.strided:
                raise ValueError(f"DistributedDataParallel: parameters must be dense CPU tensors (Gloo), got one on "
                                 f"{p.device} with layout {p.layout}")
        object.__setattr__(self, "process_group", group)
        object.__setattr__(self, "_params", params)
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        if init_sync:
            _coalesced_broadcast(list(module.parameters()) + list(module.buffers()), group)
        object.__setattr__(self, "_buckets", self._make_buckets(params))
        where = {}
        for b, bucket in enumerate(self._buckets):
            for i, p in enumerate(bucket.params):
                where[id(p)] = (b, i)
        object.__setattr__(self, "_where", where)
        object.__setattr__(self, "_hooks", [p.register_post_accumulate_grad_hook(self._gradient_ready)
                                            for p in params])
        self._ready = None  # None: no reduction expected; else the set of parameters reduced this iteration
        self._comm_hook = None
        self._backward_ran = False
        self._locally_unused = set()
        self._join_config = _JoinConfig.construct_disabled_join_config()
        self._join_count = None
        self._divide_by_initial_world_size = True
        self._hook_counts = None  # static graph: id(param) -> firings per backward, once the first has run
        self._fired = {}
        self._reduced = False  # the running backward pass has reduced this iteration's gradients

    def _make_buckets(self, params):
        # The first bucket (the gradients backward produces first) is small, so that communication starts
        # early in backward, as torch's 1 MiB first bucket does. As in torch, a bucket closes with the
        # gradient that brings it to its cap: a large layer then travels with the small ones after it
        # while backward computes the layers before it (MLP 512-1024-1024-10: buckets of 4 MiB and 2 MiB
        # instead of 44 KiB and 6 MiB, whose all-reduce could only start at the end of backward).
        buckets, current, size = [], [], 0
        for p in reversed(params):
            if current and p.dtype != current[0].dtype:
                buckets.append(_Bucket(current))
                current, size = [], 0
            current.append(p)
            size += p.numel() * p.element_size()
            cap = min(self.bucket_bytes_cap, _FIRST_BUCKET_BYTES) if not buckets else self.bucket_bytes_cap
            if size >= cap:
                buckets.append(_Bucket(current))
                current, size = [], 0
        if current:
            buckets.append(_Bucket(current))
        return buckets

    # ---- backward: one hook per parameter ----------------------------------------------------------------

    def _mark_ready(self, param, gradient):
        b, i = self._where[id(param)]
        bucket = self._buckets[b]
        with ember.no_grad():
            if gradient is None:
                bucket.slot(i).zero_()
            else:
                bucket.slot(i).copy_(gradient)
        self._ready.add(id(param))
        bucket.pending -= 1
        # Launch full buckets in index order only, so that every rank issues the same collectives.
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            launched = self._buckets[self._next_bucket]
            if self._comm_hook is None:
                launched.work = dist.all_reduce(launched.flat, group=self.process_group, async_op=True)
            else:
                state, hook = self._comm_hook
                grad_bucket = dist.GradBucket(self._next_bucket, launched.flat, launched.params, launched.offsets,
                                              self._next_bucket == len(self._buckets) - 1)
                launched.work = hook(state, grad_bucket)
            self._next_bucket += 1
        if len(self._ready) == len(self._params):
            self._finish()

    def _gradient_ready(self, param):
        if self._ready is None:
            if self._reduced:  # the reduction this pass made would leave this gradient out
                raise RuntimeError(_READY_TWICE.format(index=self._index(param)))
            return
        if self.static_graph:
            fired = self._fired[id(param)] = self._fired.get(id(param), 0) + 1
            if self._hook_counts is None:
                if fired == 1 and len(self._fired) == 1:
                    ember.autograd.Variable._execution_engine.queue_callback(self._finish_first_static_backward)
                return
            if fired > self._hook_counts[id(param)]:
                raise RuntimeError(_GRAPH_CHANGED)
            if fired < self._hook_counts[id(param)]:
                return
        elif id(param) in self._ready:
            raise RuntimeError(_READY_TWICE.format(index=self._index(param)))
        self._mark_ready(param, param.grad)

    def _index(self, param):
        return next(i for i, p in enumerate(self._params) if p is param)

    def _finish_first_static_backward(self):
        """The end of the first backward under static_graph: each parameter's hook count is known; every
        gradient is reduced now."""
        self._hook_counts = {id(p): self._fired.get(id(p), 0) for p in self._params}
        self._locally_unused = {id(p) for p in self._params if self._hook_counts[id(p)] == 0}
        for p in self._params:
            if id(p) not in self._ready:
                self._mark_ready(p, None if id(p) in self._locally_unused else p.grad)

    def _tracks_usage(self):
        """Whether each iteration agrees on the parameters no rank used (their gradients stay as they were)."""
        return self.find_unused_parameters or self.static_graph

    def _set_static_graph(self):
        """torch's DDP._set_static_graph(): static_graph=True after construction, before the first backward."""
        if self._backward_ran:
            raise RuntimeError("DistributedDataParallel._set_static_graph must be called before the first backward")
        self.static_graph = True

    def _finish(self):
        self._backward_ran = True
        # The buckets hold sums: the average's division rides on the write-back, one pass over the gradients.
        # A communication hook's Future gives the averages themselves.
        divisor = dist.get_world_size(self.process_group)
        if self._join_count is not None:
            count = self._join_count.get_future().wait()[0]  # the ranks still training this iteration
            if not self._divide_by_initial_world_size:
                divisor = int(count.item())
            self._join_count = None
        scale = 1.0 / divisor if self._comm_hook is None else 1.0
        results = [bucket.work.wait() for bucket in self._buckets]
        # After the buckets: every rank issues its collectives in the same order.
        unused_everywhere = self._globally_unused() if self._tracks_usage() else set()
        with ember.no_grad():
            for bucket, result in zip(self._buckets, results):
                if self._comm_hook is not None:
                    if not isinstance(result, ember.Tensor) or result.shape != bucket.flat.shape:
                        raise RuntimeError("DistributedDataParallel: a communication hook's Future must give one "
                                           f"tensor of the bucket's shape {tuple(bucket.flat.shape)}, got "
                                           f"{type(result).__name__}")
                    if result is not bucket.flat:
                        bucket.flat.copy_(result)
                if self.gradient_as_bucket_view and scale != 1.0:
                    bucket.flat.mul_(scale)
                for i, p in enumerate(bucket.params):
                    if id(p) in unused_everywhere:
                        continue  # as torch: a parameter no rank used keeps its gradient (None after zero_grad)
                    if self.gradient_as_bucket_view:
                        p.grad = bucket.slot(i)
                    elif p.grad is None:
                        p.grad = bucket.slot(i) * scale
                    else:
                        ember.mul(bucket.slot(i), scale, out=p.grad)
        self._ready = None
        # Until this backward pass ends, a gradient that still arrives is torch's error; in a later
        # pass without a new forward it only accumulates locally, as in torch.
        self._reduced = True
        try:
            ember.autograd.Variable._execution_engine.queue_callback(self._end_of_reduced_pass)
        except RuntimeError:  # reduced in forward (every parameter unused): no pass to wait for
            pass

    def _end_of_reduced_pass(self):
        self._reduced = False

    def register_comm_hook(self, state, hook):
        """Reduces each bucket with hook(state, bucket) instead of the built-in all-reduce: the hook gets
        a dist.GradBucket and returns an ember.futures.Future of the bucket's averaged gradients (one
        tensor of the bucket's shape). ember.distributed.algorithms.ddp_comm_hooks.default_hooks has
        torch's allreduce, fp16 and bf16 compression hooks. Once, before the first backward."""
        if not callable(hook):
            raise TypeError(f"register_comm_hook(): hook must be callable, got {type(hook).__name__}")
        if self._comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only be called once.")
        if self._backward_ran:
            raise RuntimeError("register_comm_hook must be called before the first backward of this "
                               "DistributedDataParallel module")
        self._comm_hook = (state, hook)

    # ---- uneven inputs (ember.distributed.algorithms.Join) --------------------------------------------------

    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """torch's DDP.join(): a Join context over this module alone. Gradients are averaged over the whole
        world size (the joined ranks count as zeros), or with divide_by_initial_world_size=False over the
        ranks still training in each iteration."""
        self._divide_by_initial_world_size = divide_by_initial_world_size
        return Join([self], enable, throw_on_early_termination)

    def join_hook(self, **kwargs):
        return _DDPJoinHook(self)

    @property
    def join_device(self):
        return ember.device("cpu")

    @property
    def join_process_group(self):
        return self.process_group

    def _globally_unused(self):
        """The parameters no rank's forward reached this iteration (one small all-reduce of usage flags)."""
        used = ember.tensor([0 if id(p) in self._locally_unused else 1 for p in self._params], dtype=ember.int32)
        dist.all_reduce(used, group=self.process_group)
        return {id(p) for p, count in zip(self._params, used.tolist()) if count == 0}

    # ---- forward -----------------------------------------------------------------------------------------

    def _prepare(self):
        if self._ready is not None and self._ready:
            missing = sorted(i for i, p in enumerate(self._params) if id(p) not in self._ready)
            rank = dist.get_rank(self.process_group)
            self._ready = None
            raise RuntimeError(_UNFINISHED.format(rank=rank, indices=missing))
        self._ready = set()
        self._fired = {}
        self._next_bucket = 0
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
            bucket.work = None

    def _unused(self, output):
        """The parameters the autograd graph of `output` does not reach."""
        # The visited nodes stay referenced: a node's Python object is the same on every access while it
        # lives, but a freed one's id can come back for another node, which `seen` would then skip.
        seen, reached, stack, visited = set(), set(), [], []
        for t in _tensors(output):
            if t.grad_fn is not None:
                stack.append(t.grad_fn)
            elif t.requires_grad:
                reached.add(id(t))
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            visited.append(node)
            variable = getattr(node, "variable", None)
            if variable is not None:
                reached.add(id(variable))
            stack.extend(next_node for next_node, _ in node.next_functions)
        return [p for p in self._params if id(p) not in reached]

    def forward(self, *inputs, **kwargs):
        syncing = ember.is_grad_enabled() and self.require_backward_grad_sync
        self._reduced = False
        if syncing:
            self._prepare()
            self._join_count = Join.notify_join_context(self)
        if self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers:
                _coalesced_broadcast(buffers, self.process_group)
        output = self.module(*inputs, **kwargs)
        if syncing and self.static_graph:
            if self._hook_counts is not None:  # the first backward told which parameters are unused
                for p in self._params:
                    if self._hook_counts[id(p)] == 0:
                        self._mark_ready(p, None)
        elif syncing and self.find_unused_parameters:
            unused = self._unused(output)
            self._locally_unused = {id(p) for p in unused}
            for p in unused:
                self._mark_ready(p, None)
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients of backward passes inside accumulate locally; the first one after syncs the total."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _tensors(value):
    if isinstance(value, ember.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
