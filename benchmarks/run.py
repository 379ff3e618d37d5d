"""Ember vs PyTorch vs NumPy, side by side in one run.

    python benchmarks/run.py [--quick] [--threads N[,M...]] [--markdown] [-k NAME] [--device cuda]

Each case is timed for every library that can run it (median of several
repeats, each long enough to swamp timer noise) and reported as the time
per call plus ratios: `torch/ember` > 1 means Ember is faster than PyTorch.
Timings are facts about this machine, not test assertions. The whole-model
rows (benchmarks/models.py: training steps and an inference, and the
training steps again under CPU bfloat16 autocast) come first and also report
the peak memory of one step, each library measured in a fresh process of its
own. Rows marked "lazy" train Ember's model on the lazy device (ember.lazy,
with the named executor) against torch's eager step; "first step" rows
empty the compiled-graph cache before every step, so they time recording,
compiling and running a step the first time.

With --device cuda the inputs live on the GPU (NumPy sits out), each timed
batch ends with a synchronize, and the cases whose ops have no CUDA kernel
yet are listed as such; memory-bound cases also print the bandwidth reached.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

# The checkout's own build (python/ember with its compiled _C) comes first, so
# a run measures the code at hand and not an older installed copy.
_SOURCE_TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python")
if any(name.startswith("_C.") for name in os.listdir(os.path.join(_SOURCE_TREE, "ember"))):
    sys.path.insert(0, os.path.abspath(_SOURCE_TREE))

import ember  # noqa: E402
from models import WORKLOADS  # noqa: E402
from table import print_table  # noqa: E402

try:
    import torch
except ImportError:  # the comparison columns stay empty
    torch = None


def timeit(fn, min_time, sync=lambda: None):
    fn()  # warm up (allocations, thread pool, lazy init)
    sync()
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        elapsed = time.perf_counter() - start
        if elapsed >= min_time / 5 or n >= 1 << 20:
            break
        n *= 4
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        samples.append((time.perf_counter() - start) / n)
    return statistics.median(samples)


# Bytes a memory-bound case moves per call (read + written), for GB/s.
TRAFFIC = {}


def cases(quick, device="cpu"):
    rng = np.random.default_rng(0)
    big = 1 << 22 if quick else 1 << 24
    if device == "cuda":
        big = 1 << 26

    def arrays(*shapes, dtype=np.float32):
        return [rng.standard_normal(s).astype(dtype) for s in shapes]

    tiny = arrays((10,), (10,))
    yield ("per-op overhead: add 10 floats", tiny, lambda a, b: ember.add(a, b), lambda a, b: torch.add(a, b),
           lambda a, b: np.add(a, b))
    yield ("per-op overhead: view", arrays((10,)), lambda a: a.view(2, 5), lambda a: a.view(2, 5),
           lambda a: a.reshape(2, 5))
    for n in (1 << 20, big):
        label = f"{n >> 20}M"
        TRAFFIC[f"add {label} float32"] = 12 * n
        TRAFFIC[f"exp {label} float32"] = 8 * n
        yield (f"add {label} float32", arrays((n,), (n,)), lambda a, b: a + b, lambda a, b: a + b,
               lambda a, b: a + b)
        yield (f"exp {label} float32", arrays((n,)), lambda a: ember.exp(a), lambda a: torch.exp(a),
               lambda a: np.exp(a))
    # The elementwise and reduction ops real models lean on, 1M float32 (a 1024x1024 matrix).
    m, p = arrays((1024, 1024), (1024, 1024))
    positive = [np.abs(m[0]) + 0.1]
    for name, f, g in (("sin", lambda L, x: L.sin(x), np.sin), ("log1p", lambda L, x: L.log1p(x), np.log1p),
                       ("x ** 2", lambda L, x: x ** 2, np.square), ("clamp(-1, 1)", lambda L, x: x.clamp(-1, 1), None),
                       ("silu", lambda L, x: L.nn.functional.silu(x), None),
                       ("elu", lambda L, x: L.nn.functional.elu(x), None),
                       ("leaky_relu", lambda L, x: L.nn.functional.leaky_relu(x, 0.1), None),
                       ("hardswish", lambda L, x: L.nn.functional.hardswish(x), None),
                       ("softplus", lambda L, x: L.nn.functional.softplus(x), None),
                       ("nan_to_num", lambda L, x: L.nan_to_num(x), np.nan_to_num),
                       ("to(int32)", lambda L, x: x.to(L.int32), lambda x: x.astype(np.int32)),
                       ("erfinv", lambda L, x: L.erfinv(x / 10), None),
                       ("amax dim 1", lambda L, x: x.amax(1), lambda x: x.max(1)),
                       ("max(dim=1) values+indices", lambda L, x: x.max(1), None),
                       ("topk(10) dim 1", lambda L, x: x.topk(10, 1), None)):
        yield (f"{name} [1024,1024] float32", [m], lambda x, f=f: f(ember, x), lambda x, f=f: f(torch, x), g)
    yield ("where(x > 0, x, y) [1024,1024]", [m, p], lambda x, y: ember.where(x > 0, x, y),
           lambda x, y: torch.where(x > 0, x, y), lambda x, y: np.where(x > 0, x, y))
    yield ("fmod [1024,1024] float32", [m, positive[0]], lambda x, y: ember.fmod(x, y), lambda x, y: torch.fmod(x, y),
           lambda x, y: np.fmod(x, y))
    yield ("half() [1024,1024]", [m], lambda x: x.half(), lambda x: x.half(), lambda x: x.astype(np.float16))
    yield ("broadcast add [2048,2048] + [2048]", arrays((2048, 2048), (2048,)), lambda a, b: a + b,
           lambda a, b: a + b, lambda a, b: a + b)
    yield ("transposed add x.t() + y [2048,2048]", arrays((2048, 2048), (2048, 2048)), lambda a, b: a.t() + b,
           lambda a, b: a.t() + b, lambda a, b: a.T + b)
    yield (f"sum {big >> 20}M float32", arrays((big,)), lambda a: a.sum(), lambda a: a.sum(), lambda a: a.sum())
    yield ("sum dim 0 [4096,4096]", arrays((4096, 4096)), lambda a: a.sum(0), lambda a: a.sum(0),
           lambda a: a.sum(0))
    yield ("softmax [4096,1024] dim -1", arrays((4096, 1024)), lambda a: a.softmax(-1), lambda a: a.softmax(-1),
           lambda a: _np_softmax(a))
    for n in ((512, 1024) if quick else (1024, 2048) if device == "cpu" else (1024, 4096, 8192)):
        yield (f"matmul {n}x{n} float32", arrays((n, n), (n, n)), lambda a, b: a @ b, lambda a, b: a @ b,
               lambda a, b: a @ b)
    yield ("bmm [128,64,16] @ [128,16,64] float32", arrays((128, 64, 16), (128, 16, 64)), lambda a, b: a @ b,
           lambda a, b: a @ b, lambda a, b: a @ b)
    yield ("linear [2048,64] -> 256 float32", arrays((2048, 64), (256, 64), (256,)),
           lambda x, w, b: ember.nn.functional.linear(x, w, b), lambda x, w, b: torch.nn.functional.linear(x, w, b),
           None)
    yield ("autograd: add 10 floats, recorded", tiny, _recorded_add, _recorded_add, None)
    mlp = arrays((64, 256), (256, 256), (256, 10))
    yield ("autograd: MLP [64,256] fwd+bwd", mlp, _mlp_step, _mlp_step, None)
    yield ("nn: layer_norm [64,64,128] fwd+bwd", arrays((64, 64, 128), (128,), (128,)), _layer_norm_step,
           _layer_norm_step, None)
    yield ("nn: batch_norm [16,64,28,28] fwd+bwd", arrays((16, 64, 28, 28)), _batch_norm_step, _batch_norm_step, None)
    yield ("nn: gelu [64,64,512] fwd+bwd", arrays((64, 64, 512)), _gelu_step, _gelu_step, None)
    yield ("nn: elu [64,64,512] fwd+bwd", arrays((64, 64, 512)), _elu_step, _elu_step, None)
    yield ("nn: cross_entropy [4096,65] fwd+bwd", arrays((4096, 65)), _cross_entropy_step, _cross_entropy_step, None)
    yield ("nn: attention block [32,64,128] fwd+bwd", arrays((32, 64, 128)), _attention_step, _attention_step, None)
    yield ("nn: scaled_dot_product_attention [8,8,256,64] causal fwd+bwd", arrays(*[(8, 8, 256, 64)] * 3),
           _sdpa_step, _sdpa_step, None)
    for kind in ("LSTM", "GRU"):
        yield (f"nn: {kind} 2 layers, seq 32, batch 32, 256 -> 256, fwd+bwd", arrays((32, 32, 256)),
               lambda x, k=kind: _recurrent_step(x, k), lambda x, k=kind: _recurrent_step(x, k), None)
    yield ("nn: LSTMCell step [64,512] -> 512, fwd", arrays((64, 512), (64, 512), (64, 512)), _lstm_cell_step,
           _lstm_cell_step, None)
    # An MLP block with GELU written out (GPT-2 style): eager, then traced with
    # the pointwise chain fused into one loop (ember.jit.optimize_for_inference).
    # The torch column is eager torch in both rows of a pair.
    gelu_in = arrays((1024, 2048))
    yield ("jit: GELU written out [1024,2048], eager", gelu_in, _new_gelu, _new_gelu, None)
    yield ("jit: GELU written out [1024,2048], traced + fused", gelu_in, _traced(_new_gelu), _new_gelu, None)
    block = arrays((256, 512), (512, 2048), (2048,), (2048, 512))
    yield ("jit: MLP block with it [256,512] -> 2048 -> 512, eager", block, _gelu_block, _gelu_block, None)
    yield ("jit: MLP block with it, traced + fused", block, _traced(_gelu_block), _gelu_block, None)
    yield ("optim: AdamW step, 8 x [256,256]", arrays(*[(256, 256)] * 8), _adamw_step, _adamw_step, None)
    if device == "cpu":
        images = arrays((128 if quick else 256, 3, 224, 224))
        for workers in (0, 2):
            yield (f"DataLoader: {len(images[0])} images 3x224x224, batch 64, {workers} workers", images,
                   lambda x, w=workers: _loader_epoch(x, w), lambda x, w=workers: _loader_epoch(x, w), None)
    if device == "cpu":
        signal, image = arrays((1 << 20,), (256, 256))
        yield ("fft.fft 1M float32", [signal], lambda x: ember.fft.fft(x), lambda x: torch.fft.fft(x),
               lambda x: np.fft.fft(x))
        yield ("fft.rfft 1M float32", [signal], lambda x: ember.fft.rfft(x), lambda x: torch.fft.rfft(x),
               lambda x: np.fft.rfft(x))
        batch, rhs = arrays((64, 64, 64), (64, 64, 8))
        batch = batch * 0.1 + 8 * np.eye(64, dtype=np.float32)
        spd = (batch @ batch.transpose(0, 2, 1)).astype(np.float32)
        yield ("linalg.solve [64,64,64] x [64,64,8] float32", [batch, rhs], lambda a, b: ember.linalg.solve(a, b),
               lambda a, b: torch.linalg.solve(a, b), lambda a, b: np.linalg.solve(a, b))
        yield ("linalg.cholesky [64,64,64] float32", [spd], lambda a: ember.linalg.cholesky(a),
               lambda a: torch.linalg.cholesky(a), lambda a: np.linalg.cholesky(a))
        yield ("linalg.eigh [64,64,64] float32", [spd], lambda a: ember.linalg.eigh(a), lambda a: torch.linalg.eigh(a),
               lambda a: np.linalg.eigh(a))
        yield ("linalg.svd [64,64,64] float32", [batch], lambda a: ember.linalg.svd(a), lambda a: torch.linalg.svd(a),
               lambda a: np.linalg.svd(a))
        special_in = arrays((1 << 20,))
        yield ("special: lgamma 1M float32", special_in, lambda x: ember.lgamma(x), lambda x: torch.lgamma(x), None)
        yield ("special: i0e 1M float32", special_in, lambda x: ember.special.i0e(x), lambda x: torch.special.i0e(x),
               None)
        yield ("special: erfcx 1M float32", special_in, lambda x: ember.special.erfcx(x),
               lambda x: torch.special.erfcx(x), None)
        za, zb = [(x + 1j * x.T).astype(np.complex64) for x in arrays((512, 512), (512, 512))]
        yield ("matmul a @ b.mH 512x512 complex64 (conj view)", [za, zb], lambda a, b: a @ b.mH,
               lambda a, b: a @ b.mH, lambda a, b: a @ b.conj().T)
        yield ("fft.fft2 [256,256] complex64", [(image + 1j * image.T).astype(np.complex64)],
               lambda x: ember.fft.fft2(x), lambda x: torch.fft.fft2(x), lambda x: np.fft.fft2(x))
    if hasattr(ember, "conv2d"):
        yield ("conv2d [8,64,56,56] 3x3x64", arrays((8, 64, 56, 56), (64, 64, 3, 3)),
               lambda x, w: ember.conv2d(x, w, padding=1), lambda x, w: torch.nn.functional.conv2d(x, w, padding=1),
               None)


def _new_gelu(x):
    return 0.5 * x * (1.0 + (0.7978845608028654 * (x + 0.044715 * x * x * x)).tanh())


def _gelu_block(x, w1, b1, w2):
    return _new_gelu(x @ w1 + b1) @ w2


def _traced(fn):
    """fn traced on its first inputs and optimized for inference (elementwise fusion)."""
    program = []

    def run(*inputs):
        if not program:
            program.append(ember.jit.optimize_for_inference(ember.jit.trace(fn, inputs)))
        return program[0](*inputs)
    return run


def _recorded_add(a, b):
    a.requires_grad_()
    return a + b


def _mlp_step(x, w1, w2):
    # The same code drives both libraries: the Tensor APIs match.
    w1.requires_grad_()
    w2.requires_grad_()
    y = (x @ w1).tanh() @ w2
    (y * y).mean().backward()
    w1.grad = None
    w2.grad = None


def _lib(t):
    return ember if isinstance(t, ember.Tensor) else torch


def _layer_norm_step(x, w, b):
    lib = _lib(x)
    x.requires_grad_()
    lib.nn.functional.layer_norm(x, [x.shape[-1]], w, b).sum().backward()
    x.grad = None


_BATCH_NORMS = {}


def _batch_norm_step(x):
    lib = _lib(x)
    bn = _BATCH_NORMS.setdefault(lib, lib.nn.BatchNorm2d(x.shape[1]))
    x.requires_grad_()
    bn(x).sum().backward()
    x.grad = None


def _gelu_step(x):
    lib = _lib(x)
    x.requires_grad_()
    lib.nn.functional.gelu(x).sum().backward()
    x.grad = None


def _elu_step(x):
    lib = _lib(x)
    x.requires_grad_()
    lib.nn.functional.elu(x).sum().backward()
    x.grad = None


def _cross_entropy_step(x):
    lib = _lib(x)
    x.requires_grad_()
    target = lib.arange(x.shape[0]) % x.shape[1]
    lib.nn.functional.cross_entropy(x, target).backward()
    x.grad = None


def _sdpa_step(q, k, v):
    lib = _lib(q)
    for t in (q, k, v):
        t.requires_grad_()
    lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
    q.grad = k.grad = v.grad = None


_ATTENTION = {}


def _attention_step(x):
    # One pre-norm transformer block (MultiheadAttention with a causal mask),
    # built once per library with the same seed-independent shapes.
    lib = _lib(x)
    if lib not in _ATTENTION:
        nn = lib.nn
        _ATTENTION[lib] = (nn.LayerNorm(128), nn.MultiheadAttention(128, 4, batch_first=True),
                           lib.ones(64, 64, dtype=lib.bool).triu(1))
    norm, attn, mask = _ATTENTION[lib]
    h = norm(x)
    (x + attn(h, h, h, attn_mask=mask, need_weights=False)[0]).sum().backward()


_RECURRENT = {}


def _recurrent_step(x, kind):
    lib = _lib(x)
    key = (lib.__name__, kind)
    if key not in _RECURRENT:
        _RECURRENT[key] = getattr(lib.nn, kind)(x.shape[-1], 256, num_layers=2)
    out, _ = _RECURRENT[key](x)
    out.sum().backward()


def _lstm_cell_step(x, h, c):
    lib = _lib(x)
    key = (lib.__name__, "LSTMCell")
    if key not in _RECURRENT:
        _RECURRENT[key] = lib.nn.LSTMCell(x.shape[-1], h.shape[-1])
    with lib.no_grad():
        _RECURRENT[key](x, (h, c))


_OPTIMIZERS = {}


def _adamw_step(*params):
    lib = _lib(params[0])
    key = id(params[0])
    if key not in _OPTIMIZERS:
        for p in params:
            p.requires_grad_()
            p.grad = lib.ones_like(p)
        _OPTIMIZERS[key] = lib.optim.AdamW(params)
    _OPTIMIZERS[key].step()


_LOADERS = {}


def _loader_epoch(images, workers):
    """One pass over a dataset of images (each sample a [3, 224, 224] view),
    in batches of 64. Workers persist between passes, so the time is the
    steady state: collating in the workers and handing batches over (shared
    memory in both libraries)."""
    lib = _lib(images)
    key = (lib.__name__, workers, images.data_ptr())
    if key not in _LOADERS:
        dataset = lib.utils.data.TensorDataset(images)
        _LOADERS[key] = lib.utils.data.DataLoader(dataset, batch_size=64, num_workers=workers,
                                                  persistent_workers=workers > 0)
    for (batch,) in _LOADERS[key]:
        batch[0, 0, 0, 0].item()  # the batch is here and readable


def machine_summary():
    """The CPU, the vector extensions it has that kernels pick from, and the
    native libraries Ember loaded (BLAS, oneDNN) as their files name them."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name") and model == "unknown CPU":
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = set(line.split(":", 1)[1].split())
    except OSError:
        pass
    wanted = ("avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16")
    loaded = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                name = os.path.basename(line.split()[-1])
                if any(k in name for k in ("openblas", "dnnl", "mkl", "blas.so")) and "torch" not in line and "scipy" not in name:
                    loaded.add(name)
    except OSError:
        pass
    held = [f"{k}={os.environ[k]}" for k in ISA_CAPS["avx2"] if k in os.environ]
    # The path 16-bit (autocast) matmuls and convolutions take on this CPU.
    lowp = ember._C._lowp_kernels()["bfloat16"]
    bf16 = ", ".join(f"{op} {kernel or 'via float32'}" for op, kernel in lowp.items())
    return (f"cpu: {model}; {' '.join(f for f in wanted if f in flags) or 'no AVX2'} "
            f"(Ember's kernels: {ember.backends.cpu.get_cpu_capability()}; bfloat16: {bf16}); Ember loaded: "
            f"{', '.join(sorted(loaded)) or '-'}" + (f"; held: {' '.join(held)}" if held else ""))


def _rss_kib(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def memory_probe(index, lib_name, threads):
    """Run in a fresh process: the peak resident memory one step adds over
    what the built model holds (VmHWM after the step minus VmRSS before it,
    the high-water mark reset first), in MiB."""
    lib = ember if lib_name == "ember" else __import__(lib_name)
    lib.set_num_threads(threads)
    step = WORKLOADS[index][1](lib)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS
    before = _rss_kib("VmRSS")
    step()
    step()
    print((_rss_kib("VmHWM") - before) / 1024)


def peak_step_memory(index, lib_name, threads):
    """MiB, or None where the probe cannot run (no /proc, no such library)."""
    done = subprocess.run([sys.executable, __file__, "--memory-probe", str(index), lib_name, "--threads", str(threads)],
                          capture_output=True, text=True, timeout=600)
    try:
        return float(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def _np_softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def measure(args, threads):
    """(rows, memory) at `threads` threads for Ember and PyTorch alike."""
    on_gpu = args.device == "cuda"
    torch_gpu = torch is not None and on_gpu and torch.cuda.is_available()
    ember.set_num_threads(threads)
    if torch is not None:
        torch.set_num_threads(threads)
    min_time = 0.05 if args.quick else 0.25

    rows, memory = [], {}
    for index, (name, build) in enumerate(WORKLOADS if not on_gpu else []):
        if args.only not in name:
            continue
        try:
            ember_step = build(ember)
        except ImportError as e:  # the lazy device's xla executor without jax
            print(f"{name}: skipped ({e})")
            continue
        t_ember = timeit(ember_step, min_time)
        t_torch = timeit(build(torch), min_time) if torch is not None else None
        rows.append((name, t_ember, t_torch, None))
        memory[name] = (peak_step_memory(index, "ember", threads),
                        peak_step_memory(index, "torch", threads) if torch is not None else None)
    ember_sync = ember.cuda.synchronize if on_gpu else (lambda: None)
    for name, inputs, ember_fn, torch_fn, numpy_fn in cases(args.quick, args.device):
        if args.only not in name:
            continue
        e_in = [ember.from_numpy(x).to(args.device) for x in inputs]
        try:
            t_ember = timeit(lambda: ember_fn(*e_in), min_time, ember_sync)
        except NotImplementedError as e:  # an op without a kernel on this device yet
            print(f"{name}: not on {args.device} yet ({str(e).splitlines()[0][:90]})")
            continue
        t_torch = None
        if torch is not None and (torch_gpu or not on_gpu):
            t_in = [torch.from_numpy(x).to(args.device) for x in inputs]
            t_torch = timeit(lambda: torch_fn(*t_in), min_time, torch.cuda.synchronize if on_gpu else lambda: None)
        t_numpy = timeit(lambda: numpy_fn(*inputs), min_time) if numpy_fn and not on_gpu else None
        rows.append((name, t_ember, t_torch, t_numpy))
    return rows, memory


def report(args, threads, rows, memory):
    """Prints the table of one thread count, headed by the machine and versions."""
    on_gpu = args.device == "cuda"

    def fmt_time(t):
        if t is None:
            return "-"
        for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
            if t >= scale:
                return f"{t / scale:.3g} {unit}"
        return f"{t / 1e-9:.3g} ns"

    def ratio(other, mine):
        return "-" if other is None else f"{other / mine:.2f}"

    def bandwidth(name, t):
        return "-" if t is None or name not in TRAFFIC else f"{TRAFFIC[name] / t / 1e9:.0f}"

    def fmt_memory(name):
        if name not in memory:
            return "-"
        mine, theirs = memory[name]
        return "/".join("?" if m is None else f"{m:.0f}" for m in (mine, theirs))

    header = ("case", "ember", "torch", "numpy", "torch/ember", "numpy/ember", "step MiB ember/torch")
    table = [header] + [(n, fmt_time(e), fmt_time(t), fmt_time(p), ratio(t, e), ratio(p, e), fmt_memory(n))
                        for n, e, t, p in rows]
    if on_gpu:
        header = ("case", "ember", "torch", "torch/ember", "ember GB/s", "torch GB/s")
        table = [header] + [(n, fmt_time(e), fmt_time(t), ratio(t, e), bandwidth(n, e), bandwidth(n, t))
                            for n, e, t, _ in rows]
    versions = f"ember {ember.__version__} ({os.path.dirname(ember.__file__)}), numpy {np.__version__}" + (
        f", torch {torch.__version__}" if torch is not None else "") + f", {threads} threads"
    if on_gpu:
        versions += f", {ember.cuda.get_device_name(0)}"
    compared = [t / e for _, e, t, _ in rows if t is not None]
    behind = f"cases behind torch: {sum(r < 1.0 for r in compared)} of {len(compared)}"
    if args.markdown:
        print(f"_{versions}_\n\n_{machine_summary()}_\n")
        print_table(header, table[1:], markdown=True)
        print(f"\n_{behind}_")
    else:
        print(versions)
        print(machine_summary())
        print_table(header, table[1:])
        print(behind)


# --isa avx2: every library held to AVX2 (with FMA), so that an AVX-512
# machine runs the table as an AVX2-only one would pick its kernels. Each
# reads its variable when it loads, hence the fresh process.
ISA_CAPS = {"avx2": {"EMBER_CPU_CAPABILITY": "avx2", "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2",
                     "DNNL_MAX_CPU_ISA": "AVX2", "OPENBLAS_CORETYPE": "Haswell", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}}


def hold_to_isa(isa):
    caps = ISA_CAPS[isa]
    if all(os.environ.get(k) == v for k, v in caps.items()):
        return
    os.environ.update(caps)
    os.execv(sys.executable, [sys.executable] + sys.argv)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes, shorter timing")
    parser.add_argument("--threads", default=None,
                        help="threads for Ember and PyTorch; a list (1,2) gives one table per count")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("-k", dest="only", default="", help="run only the cases whose name contains this")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="where the inputs live")
    parser.add_argument("--isa", choices=sorted(ISA_CAPS), help="hold Ember, PyTorch, oneDNN, OpenBLAS and MKL to "
                        "this instruction set (an AVX2-only machine's kernels on a larger one)")
    parser.add_argument("--memory-probe", nargs=2, metavar=("CASE", "LIB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.isa:
        hold_to_isa(args.isa)
    counts = [int(t) for t in args.threads.split(",")] if args.threads else [ember.get_num_threads()]
    if args.memory_probe:
        return memory_probe(int(args.memory_probe[0]), args.memory_probe[1], counts[0])
    if args.device == "cuda" and not ember.cuda.is_available():
        raise SystemExit("--device cuda: " + ember.cuda._unavailable_reason())
    for i, threads in enumerate(counts):
        if i:
            print()
        report(args, threads, *measure(args, threads))


if __name__ == "__main__":
    main()
