"""Whether ops split work across threads only where it pays: for sizes
around the parallel grain, the time at 1 thread over the time at 2 threads
(about 1.0 where an op stays on one thread, above 1 where two help; below
1 would mean a thread woken for too little work).

    python benchmarks/grain_sizes.py
"""

import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import ember  # noqa: E402

OPS = {
    "add": lambda a, b: a + b,
    "exp": lambda a, b: a.exp(),
    "sum": lambda a, b: a.sum(),
    "mul_": lambda a, b: a.mul_(1.0),
    "softmax rows of 64": lambda a, b: a.view(-1, 64).softmax(-1),
    "gelu": lambda a, b: ember.nn.functional.gelu(a),
    "transpose copy": lambda a, b: a.view(-1, 64).t().contiguous(),
}


def main():
    rng = np.random.default_rng(0)
    print("elements  " + " | ".join(OPS))
    for n in (1 << 10, 1 << 12, 1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18):
        a, b = (ember.tensor(rng.standard_normal(n).astype(np.float32)) for _ in range(2))
        ratios = []
        for f in OPS.values():
            times = []
            for threads in (1, 2):
                ember.set_num_threads(threads)
                number = max(10, 2_000_000 // n)
                times.append(min(timeit.repeat(lambda: f(a, b), number=number, repeat=5)) / number)
            ratios.append(f"{times[0] / times[1]:.2f}")
        print(f"{n:8d}  " + " | ".join(ratios))


if __name__ == "__main__":
    main()
