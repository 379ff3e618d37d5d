"""ember.distributed: process groups and collectives, as torch.distributed.

Processes meet through a store (TCPStore, FileStore, HashStore; or an
``init_method`` of ``env://``, ``tcp://host:port`` or ``file://path``), and
their collectives run on Gloo, the library PyTorch itself uses for CPU
tensors. Each process group runs its collectives on a worker thread in the
order they are issued, so ``async_op=True`` returns a Work handle at once.
Launch the processes with ``python -m ember.distributed.run --nproc-per-node N
script.py`` (torchrun's interface). A peer that dies or stalls makes the
others raise DistBackendError (naming the collective and the rank) within the
group's timeout. With EMBER_DISTRIBUTED_DEBUG=DETAIL (or TORCH_DISTRIBUTED_DEBUG), each collective
first checks that every rank called the same one on the same shapes, and raises naming each rank's call.
"""

import datetime
import enum
import io
import ipaddress
import os
import socket
import urllib.parse
import warnings

import ember

from .. import futures as _futures
from .._C import _distributed as _backend
from ._store import FileStore, HashStore, PrefixStore, Store, TCPStore

__all__ = [
    "Backend", "DistBackendError", "DistError", "FileStore", "GradBucket", "GroupMember", "HashStore", "P2POp",
    "PrefixStore",
    "ProcessGroup", "ReduceOp", "Store", "TCPStore", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "all_to_all", "all_to_all_single", "barrier", "batch_isend_irecv",
    "broadcast", "broadcast_object_list", "destroy_process_group", "gather", "gather_object", "get_backend",
    "get_global_rank", "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
    "init_process_group", "irecv", "is_available", "is_gloo_available", "is_initialized", "is_mpi_available",
    "is_nccl_available", "is_torchelastic_launched", "isend", "monitored_barrier", "new_group", "recv", "reduce",
    "reduce_scatter", "reduce_scatter_tensor", "scatter", "scatter_object_list", "send",
]

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."
_DEFAULT_TIMEOUT = datetime.timedelta(minutes=30)


class DistError(RuntimeError):
    """The base of ember.distributed's errors."""


DistBackendError = getattr(_backend, "DistBackendError", DistError)


class ReduceOp(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class Backend(str):
    """A backend name, lower-cased and checked (``Backend('GLOO') == 'gloo'``)."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    MPI = "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return super().__new__(cls, name.lower())


def is_available():
    """Whether a process-group backend (Gloo) is built into Ember."""
    return bool(_backend.has_gloo)


def is_gloo_available():
    return bool(_backend.has_gloo)


def is_nccl_available():
    return False


def is_mpi_available():
    return False


def is_torchelastic_launched():
    """Whether this process was started by a launcher (ember.distributed.run or torchrun)."""
    return os.environ.get("TORCHELASTIC_RUN_ID") is not None


class ProcessGroup:
    """A set of ranks that run collectives together: ``rank()`` and ``size()`` within the group, and the
    global ranks it holds."""

    def __init__(self, backend_group, ranks, store, name, host=None):
        self._pg = backend_group
        self._ranks = list(ranks)
        self._store = store
        self._host = host  # the rendezvous host, which tells whether peers are on this machine
        self.group_name = name

    def rank(self):
        return self._pg.rank()

    def size(self):
        return self._pg.size()

    def name(self):
        return "gloo"

    def __repr__(self):
        return f"ProcessGroup(name={self.group_name!r}, ranks={self._ranks}, backend='gloo')"


class GroupMember:
    """``GroupMember.WORLD`` is the default group once initialized; collectives called with a group the
    caller is not part of (``NON_GROUP_MEMBER``) do nothing."""

    WORLD = None
    NON_GROUP_MEMBER = -100


group = GroupMember


class Work:
    """The handle an ``async_op=True`` call returns: ``wait()`` blocks until the operation is done (and
    raises its error); ``is_completed()`` polls."""

    def __init__(self, work, finish=None, outputs=None):
        self._work = work
        self._finish = finish
        self._finished = False
        self._outputs = outputs
        self._future = None

    def wait(self, timeout=None):
        seconds = timeout.total_seconds() if isinstance(timeout, datetime.timedelta) else (timeout or 0.0)
        self._work.wait(seconds)
        if self._finish is not None and not self._finished:
            self._finished = True
            self._finish()
        return True

    def is_completed(self):
        return self._work.is_completed()

    def is_success(self):
        return self._work.is_success()

    def exception(self):
        return self._work.exception()

    def _source_rank(self):
        """The rank a receive got its data from."""
        return self._work._source_rank()

    def get_future(self):
        """An ember.futures.Future completed with the operation's output tensors (a list) when it is done;
        waiting on it (or on a Future chained with then()) waits for the operation."""
        if self._outputs is None:
            raise RuntimeError("Work.get_future: only all_reduce, broadcast, reduce and all_gather_into_tensor "
                               "give a Future of their output tensors")
        if self._future is None:
            self._future = _WorkFuture(self)
        return self._future


class GradBucket:
    """What a DistributedDataParallel communication hook gets: one bucket of gradients, flattened in
    ``buffer()`` (the tensor the hook reduces and whose averages its Future gives back)."""

    def __init__(self, index, buffer, parameters, offsets, is_last):
        self._index, self._buffer, self._parameters, self._offsets = index, buffer, parameters, offsets
        self._is_last = is_last

    def index(self):
        return self._index

    def buffer(self):
        return self._buffer

    def set_buffer(self, buffer):
        self._buffer = buffer

    def parameters(self):
        return list(self._parameters)

    def gradients(self):
        """Views of buffer() shaped as each parameter."""
        return [self._buffer[o:o + p.numel()].view(p.shape) for p, o in zip(self._parameters, self._offsets)]

    def is_last(self):
        return self._is_last


class _WorkFuture(_futures.Future):
    def __init__(self, work):
        super().__init__()
        self._work = work

    def _complete(self):
        if self.done():
            return
        try:
            self._work.wait()
        except Exception as error:
            self.set_exception(error)
        else:
            self.set_result(list(self._work._outputs))


_state = {"default": None, "store": None, "groups": 0, "timeout": _DEFAULT_TIMEOUT}


def is_initialized():
    """Whether this process has joined a default process group."""
    return _state["default"] is not None


def _default_group(group):
    if group is None:
        group = _state["default"]
        if group is None:
            raise ValueError(_NOT_INITIALIZED)
    return group


def _loopback(host):
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        return False


def _env_int(name, given):
    if given is not None and given >= 0:
        return given
    value = os.environ.get(name)
    if value is None:
        raise ValueError(f"Error initializing torch.distributed using env:// rendezvous: environment variable "
                         f"{name} expected, but not set")
    return int(value)


def _rendezvous(init_method, rank, world_size, timeout):
    """(store, rank, world_size, host) from an init_method URL."""
    url = urllib.parse.urlparse(init_method)
    query = dict(urllib.parse.parse_qsl(url.query))
    if "rank" in query:
        rank = int(query["rank"])
    if "world_size" in query:
        world_size = int(query["world_size"])
    if url.scheme == "env":
        host = os.environ.get("MASTER_ADDR")
        if host is None:
            raise ValueError("Error initializing torch.distributed using env:// rendezvous: environment variable "
                             "MASTER_ADDR expected, but not set")
        port = _env_int("MASTER_PORT", None)
        rank, world_size = _env_int("RANK", rank), _env_int("WORLD_SIZE", world_size)
        return TCPStore(host, port, world_size, rank == 0, timeout), rank, world_size, host
    if rank < 0 or world_size < 0:
        raise ValueError(f"init_process_group: rank and world_size must be given with init_method {init_method!r}")
    if url.scheme == "tcp":
        if url.hostname is None or url.port is None:
            raise ValueError(f"init_process_group: tcp:// init_method needs host:port, got {init_method!r}")
        return TCPStore(url.hostname, url.port, world_size, rank == 0, timeout), rank, world_size, url.hostname
    if url.scheme == "file":
        return FileStore(url.path, world_size, timeout), rank, world_size, "127.0.0.1"
    raise ValueError(f"init_process_group: unsupported init_method {init_method!r} (env://, tcp:// or file://)")


def _check_backend(backend):
    if backend is None:
        return Backend.GLOO
    name = str(backend).lower()
    if ":" in name:  # "cpu:gloo,cuda:nccl": the CPU part is what Ember runs
        parts = dict(p.split(":", 1) for p in name.split(","))
        name = parts.get("cpu", "gloo")
    if name == Backend.NCCL:
        raise RuntimeError("ember.distributed: the NCCL backend needs CUDA devices; Ember's CPU collectives run on "
                           "'gloo'")
    if name != Backend.GLOO:
        raise ValueError(f"ember.distributed: unknown or unsupported backend {backend!r} (Ember has 'gloo')")
    return Backend.GLOO


def _new_backend_group(store, rank, size, timeout, host):
    if not is_available():
        raise RuntimeError("ember.distributed: this build of Ember has no Gloo (install libgloo-dev and rebuild)")
    return _backend.ProcessGroupGloo(store, rank, size, timeout.total_seconds(),
                                     "127.0.0.1" if host is not None and _loopback(host) else "")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Joins this process to the default group of world_size processes, meeting the others through `store`
    or `init_method` (env:// by default: MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE from the
    environment)."""
    if is_initialized():
        raise ValueError("trying to initialize the default process group twice!")
    _check_backend(backend)
    timeout = timeout or _DEFAULT_TIMEOUT
    host = None
    if store is None:
        store, rank, world_size, host = _rendezvous(init_method or "env://", rank, world_size, timeout)
    elif rank < 0 or world_size <= 0:
        raise ValueError("init_process_group: rank and world_size must be given with a store")
    if not 0 <= rank < world_size:
        raise ValueError(f"init_process_group: rank {rank} is not in [0, {world_size})")
    backend_group = _new_backend_group(PrefixStore("default_pg", store), rank, world_size, timeout, host)
    default = ProcessGroup(backend_group, range(world_size), store, group_name or "default_pg", host)
    _state.update(default=default, store=store, groups=0, timeout=timeout)
    GroupMember.WORLD = default


def destroy_process_group(group=None):
    """Leaves the default group (and every group made from it), or one group."""
    if group is None:
        if _state["default"] is None:
            raise AssertionError("Process group cannot be None")
        default = _state["default"]
        _state.update(default=None, store=None, groups=0)
        GroupMember.WORLD = None
        default._pg = None
        return
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    group._pg = None


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None):
    """A group of the given global ranks (all by default). Every process of the default group must call
    it, in the same order; processes outside `ranks` get GroupMember.NON_GROUP_MEMBER."""
    default = _default_group(None)
    _check_backend(backend)
    world = default.size()
    ranks = sorted(range(world) if ranks is None else ranks)
    for r in ranks:
        if not 0 <= r < world:
            raise ValueError(f"new_group: rank {r} is not a rank of the default group (0 to {world - 1})")
    _state["groups"] += 1
    name = f"group_{_state['groups']}"
    me = default.rank()
    if me not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    store = PrefixStore(name, _state["store"])
    backend_group = _new_backend_group(store, ranks.index(me), len(ranks), timeout or _state["timeout"],
                                       default._host)
    return ProcessGroup(backend_group, ranks, store, name, default._host)


def _resolve(group):
    """The ProcessGroup to run on, or None when this process is not in it."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return None
    g = _default_group(group)
    if g._pg is None:
        raise ValueError("ember.distributed: the process group has been destroyed")
    return g


def _group_rank(g, global_rank, what):
    if global_rank not in g._ranks:
        raise ValueError(f"ember.distributed: {what} rank {global_rank} is not part of the group {g._ranks}")
    return g._ranks.index(global_rank)


def _peer(g, global_rank, group_rank, what):
    if group_rank is not None:
        return group_rank
    if global_rank is None:
        raise ValueError(f"ember.distributed: {what} must be given")
    return _group_rank(g, global_rank, what)


def _root(g, global_rank, group_rank, what):
    """The group rank of a collective's root: given as a global or a group rank, else the group's first."""
    if global_rank is None and group_rank is None:
        return 0
    return _peer(g, global_rank, group_rank, what)


def _unflatten_into(flat, tensors):
    """Copies consecutive pieces of flat into each tensor, in order."""
    offset = 0
    for t in tensors:
        t.copy_(flat[offset:offset + t.numel()].view(t.shape))
        offset += t.numel()


def _result(work, async_op, finish=None, outputs=None):
    handle = Work(work, finish, outputs)
    if async_op:
        return handle
    handle.wait()
    return None


def _check_tensor(tensor, name):
    if not isinstance(tensor, ember.Tensor):
        raise TypeError(f"ember.distributed.{name}: expected a Tensor, got {type(tensor).__name__}")


def _check_op(op, name):
    op = ReduceOp(op)
    if op == ReduceOp.PREMUL_SUM:
        raise ValueError(f"ember.distributed.{name}: ReduceOp.PREMUL_SUM is not supported by the gloo backend")
    return int(op)


# ---- EMBER_DISTRIBUTED_DEBUG=DETAIL: every rank must call the same collective on the same shapes ---------

_COLLECTIVES = ["all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor",
                "gather", "scatter", "all_to_all_single", "all_to_all", "barrier"]
_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "complex64", "complex128"]
_FINGERPRINT = 8  # collective, op, dtype, ndim, 4 leading sizes


def _debug_detail():
    return "DETAIL" in (os.environ.get("EMBER_DISTRIBUTED_DEBUG", ""), os.environ.get("TORCH_DISTRIBUTED_DEBUG", ""))


def _fingerprint(name, tensor, op):
    if tensor is None:
        return [_COLLECTIVES.index(name), -1, -1, -1, -1, -1, -1, -1]
    shape = list(tensor.shape)[:4]
    return ([_COLLECTIVES.index(name), -1 if op is None else int(op), _DTYPES.index(str(tensor.dtype)[6:]),
             tensor.dim()] + shape + [-1] * (4 - len(shape)))


def _describe(fingerprint):
    name, op, dtype, ndim, *sizes = fingerprint
    if dtype < 0:
        return f"{_COLLECTIVES[name]}()"
    shape = sizes[:min(ndim, 4)] + (["..."] if ndim > 4 else [])
    return (f"{_COLLECTIVES[name]}({_DTYPES[dtype]} {list(shape)}"
            f"{'' if op < 0 else ', ' + ReduceOp(op).name})")


def _check_same_call(g, name, tensor=None, op=None):
    """With EMBER_DISTRIBUTED_DEBUG=DETAIL: all-gathers a fixed-size fingerprint of this call (which cannot
    itself mismatch) and raises on every rank if the ranks called different collectives or shapes."""
    if not _debug_detail():
        return
    mine = ember.tensor(_fingerprint(name, tensor, op), dtype=ember.int64)
    everyone = ember.empty(g.size() * _FINGERPRINT, dtype=ember.int64)
    Work(g._pg.allgather(everyone, mine)).wait()
    rows = everyone.view(g.size(), _FINGERPRINT).tolist()
    if any(row != rows[0] for row in rows):
        calls = ", ".join(f"rank {g._ranks[r]} called {_describe(row)}" for r, row in enumerate(rows))
        raise RuntimeError(f"ember.distributed.{name}: the ranks' collectives do not match (detected by "
                           f"EMBER_DISTRIBUTED_DEBUG=DETAIL): {calls}")


def get_rank(group=None):
    """This process's rank in `group` (the default group by default); -1 if it is not a member."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _default_group(group).rank()


def get_world_size(group=None):
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return _default_group(group).size()


def get_backend(group=None):
    _default_group(group)
    return Backend.GLOO


def get_process_group_ranks(group):
    return list(_default_group(group)._ranks)


def get_global_rank(group, group_rank):
    return _default_group(group)._ranks[group_rank]


def get_group_rank(group, global_rank):
    return _group_rank(_default_group(group), global_rank, "global")


def barrier(group=None, async_op=False, device_ids=None):
    g = _resolve(group)
    if g is None:
        return None
    _check_same_call(g, "barrier")
    return _result(g._pg.barrier(), async_op)


def monitored_barrier(group=None, timeout=None, wait_all_ranks=False):
    g = _resolve(group)
    if g is None:
        return None
    Work(g._pg.barrier()).wait(timeout)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces `tensor` across the group in place: every rank ends with the result."""
    _check_tensor(tensor, "all_reduce")
    g = _resolve(group)
    if g is None:
        return None
    op = _check_op(op, "all_reduce")
    _check_same_call(g, "all_reduce", tensor, op)
    return _result(g._pg.allreduce(tensor, op), async_op, outputs=[tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduces `tensor` across the group into rank dst's tensor."""
    _check_tensor(tensor, "reduce")
    g = _resolve(group)
    if g is None:
        return None
    root = _peer(g, dst, group_dst, "dst")
    op = _check_op(op, "reduce")
    _check_same_call(g, "reduce", tensor, op)
    return _result(g._pg.reduce(tensor, root, op), async_op, outputs=[tensor])


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copies rank src's tensor into every rank's."""
    _check_tensor(tensor, "broadcast")
    g = _resolve(group)
    if g is None:
        return None
    _check_same_call(g, "broadcast", tensor)
    return _result(g._pg.broadcast(tensor, _peer(g, src, group_src, "src")), async_op, outputs=[tensor])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's input, in rank order, into output_tensor (world_size times the input's elements)."""
    _check_tensor(output_tensor, "all_gather_into_tensor")
    _check_tensor(input_tensor, "all_gather_into_tensor")
    g = _resolve(group)
    if g is None:
        return None
    _check_same_call(g, "all_gather_into_tensor", input_tensor)
    return _result(g._pg.allgather(output_tensor, input_tensor), async_op, outputs=[output_tensor])


def _check_list(tensors, size, name, what):
    if not isinstance(tensors, (list, tuple)) or len(tensors) != size:
        raise ValueError(f"ember.distributed.{name}: {what} must be a list of world_size ({size}) tensors")
    for t in tensors:
        _check_tensor(t, name)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's tensor into tensor_list, in rank order."""
    _check_tensor(tensor, "all_gather")
    g = _resolve(group)
    if g is None:
        return None
    _check_list(tensor_list, g.size(), "all_gather", "tensor_list")
    flat = ember.empty(g.size() * tensor.numel(), dtype=tensor.dtype)

    _check_same_call(g, "all_gather", tensor)
    return _result(g._pg.allgather(flat, tensor), async_op, lambda: _unflatten_into(flat, tensor_list))


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces input (world_size times output's elements) across ranks; rank r keeps chunk r."""
    _check_tensor(output, "reduce_scatter_tensor")
    _check_tensor(input, "reduce_scatter_tensor")
    g = _resolve(group)
    if g is None:
        return None
    if input.numel() != g.size() * output.numel():
        raise ValueError(f"ember.distributed.reduce_scatter_tensor: input must have world_size ({g.size()}) times "
                         f"output's {output.numel()} elements, got {input.numel()}")
    # Gloo has no reduce-scatter of its own: reduce all, keep this rank's chunk.
    reduced = input.contiguous().clone()

    def finish():
        n = output.numel()
        output.copy_(reduced.view(-1)[g.rank() * n:(g.rank() + 1) * n].view(output.shape))

    op = _check_op(op, "reduce_scatter_tensor")
    _check_same_call(g, "reduce_scatter_tensor", input, op)
    return _result(g._pg.allreduce(reduced, op), async_op, finish)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduces input_list[r] across ranks into rank r's output."""
    _check_tensor(output, "reduce_scatter")
    g = _resolve(group)
    if g is None:
        return None
    _check_list(input_list, g.size(), "reduce_scatter", "input_list")
    return reduce_scatter_tensor(output, ember.cat([t.reshape(-1) for t in input_list]), op, group, async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's tensor into rank dst's gather_list."""
    _check_tensor(tensor, "gather")
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    if g.rank() == root:
        _check_list(gather_list, g.size(), "gather", "gather_list")
        flat = ember.empty(g.size() * tensor.numel(), dtype=tensor.dtype)
    else:
        if gather_list:
            raise ValueError("ember.distributed.gather: Argument ``gather_list`` must NOT be specified on "
                             "non-destination ranks.")
        flat = ember.empty(0, dtype=tensor.dtype)

    _check_same_call(g, "gather", tensor)
    return _result(g._pg.gather(flat, tensor, root), async_op,
                   lambda: _unflatten_into(flat, gather_list) if g.rank() == root else None)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank src's scatter_list[r] into rank r's tensor."""
    _check_tensor(tensor, "scatter")
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    if g.rank() == root:
        _check_list(scatter_list, g.size(), "scatter", "scatter_list")
        flat = ember.cat([t.reshape(-1) for t in scatter_list])
    else:
        if scatter_list:
            raise ValueError("ember.distributed.scatter: Argument ``scatter_list`` must NOT be specified on "
                             "non-source ranks.")
        flat = ember.empty(0, dtype=tensor.dtype)
    _check_same_call(g, "scatter", tensor)
    return _result(g._pg.scatter(tensor, flat, root), async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None, async_op=False):
    """Rows of input to each rank (input_split_sizes[r] rows to rank r; equal chunks of dim 0 by default),
    and theirs into output, in rank order."""
    _check_tensor(output, "all_to_all_single")
    _check_tensor(input, "all_to_all_single")
    g = _resolve(group)
    if g is None:
        return None
    _check_same_call(g, "all_to_all_single", input)
    if output_split_sizes is None and input_split_sizes is None:
        return _result(g._pg.alltoall(output, input), async_op)

    def counts(tensor, splits):
        row = tensor[0].numel() if tensor.dim() and tensor.shape[0] else 1
        if splits is None:
            if tensor.dim() == 0 or tensor.shape[0] % g.size():
                raise ValueError("ember.distributed.all_to_all_single: without split sizes, dim 0 must divide "
                                 "evenly among the ranks")
            splits = [tensor.shape[0] // g.size()] * g.size()
        return [int(s) * row for s in splits]

    return _result(g._pg.alltoall(output, input, counts(output, output_split_sizes),
                                  counts(input, input_split_sizes)), async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """input_tensor_list[r] to rank r; output_tensor_list[r] from rank r (any sizes, one dtype)."""
    g = _resolve(group)
    if g is None:
        return None
    _check_list(output_tensor_list, g.size(), "all_to_all", "output_tensor_list")
    _check_list(input_tensor_list, g.size(), "all_to_all", "input_tensor_list")
    flat_in = ember.cat([t.reshape(-1) for t in input_tensor_list])
    output_counts = [t.numel() for t in output_tensor_list]
    flat_out = ember.empty(sum(output_counts), dtype=flat_in.dtype)
    _check_same_call(g, "all_to_all", None)

    return _result(g._pg.alltoall(flat_out, flat_in, output_counts, [t.numel() for t in input_tensor_list]),
                   async_op, lambda: _unflatten_into(flat_out, output_tensor_list))


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Starts sending tensor to rank dst; the Work's wait() returns once the peer has it."""
    _check_tensor(tensor, "isend")
    g = _resolve(group)
    if g is None:
        return None
    return Work(g._pg.send(tensor, _peer(g, dst, group_dst, "dst"), tag))


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Starts receiving rank src's tensor (from any rank if src is None) into tensor."""
    _check_tensor(tensor, "irecv")
    g = _resolve(group)
    if g is None:
        return None
    peer = -1 if src is None and group_src is None else _peer(g, src, group_src, "src")
    return Work(g._pg.recv(tensor, peer, tag))


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receives rank src's tensor (any rank's if src is None) into tensor; returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    g = _default_group(group)
    return g._ranks[work._work._source_rank()]


class P2POp:
    """One send or receive of batch_isend_irecv: op is ember.distributed.isend or irecv."""

    def __init__(self, op, tensor, peer=None, group=None, tag=0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, group_peer


def batch_isend_irecv(p2p_op_list):
    """Starts every send and receive of the list; returns their Work handles."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]


# ---- objects: encoded with ember.save, decoded with ember.load(weights_only=True), never unpickled ----


def _encode(obj):
    buffer = io.BytesIO()
    ember.save(obj, buffer)
    return ember.frombuffer(bytearray(buffer.getvalue()), dtype=ember.uint8)


def _decode(tensor):
    return ember.load(io.BytesIO(bytes(tensor.numpy().tobytes())), weights_only=True)


def _gather_bytes(g, payload):
    """Every rank's byte tensor (padded to the longest), and each one's length."""
    size = ember.tensor([payload.numel()], dtype=ember.int64)
    sizes = ember.empty(g.size(), dtype=ember.int64)
    Work(g._pg.allgather(sizes, size)).wait()
    longest = int(sizes.max())
    padded = ember.zeros(longest, dtype=ember.uint8)
    padded[:payload.numel()] = payload
    out = ember.empty(g.size() * longest, dtype=ember.uint8)
    Work(g._pg.allgather(out, padded)).wait()
    return [out[i * longest:i * longest + int(sizes[i])] for i in range(g.size())]


def all_gather_object(object_list, obj, group=None):
    """Every rank's obj into object_list (encoded with ember.save; tensors, numbers, strings and
    containers of them, as ember.load's weights_only allows)."""
    g = _resolve(group)
    if g is None:
        return None
    if len(object_list) != g.size():
        raise ValueError(f"ember.distributed.all_gather_object: object_list must have world_size ({g.size()}) "
                         f"entries")
    for i, data in enumerate(_gather_bytes(g, _encode(obj))):
        object_list[i] = _decode(data)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None):
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, dst, group_dst, "dst")
    gathered = _gather_bytes(g, _encode(obj))
    if g.rank() == root:
        for i, data in enumerate(gathered):
            object_gather_list[i] = _decode(data)


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Rank src's object_list into every rank's (in place)."""
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    payload = _encode(list(object_list)) if g.rank() == root else ember.empty(0, dtype=ember.uint8)
    size = ember.tensor([payload.numel()], dtype=ember.int64)
    Work(g._pg.broadcast(size, root)).wait()
    if g.rank() != root:
        payload = ember.empty(int(size), dtype=ember.uint8)
    Work(g._pg.broadcast(payload, root)).wait()
    if g.rank() != root:
        object_list[:] = _decode(payload)


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None, group=None,
                        group_src=None):
    g = _resolve(group)
    if g is None:
        return None
    root = _root(g, src, group_src, "src")
    received = [None]
    broadcast_object_list(received if g.rank() != root else [list(scatter_object_input_list)], g._ranks[root],
                          group)
    if g.rank() == root:
        scatter_object_output_list[0] = scatter_object_input_list[root]
    else:
        scatter_object_output_list[0] = received[0][g.rank()]
