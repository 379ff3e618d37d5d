"""Train a small MLP to tell two interleaved spirals apart.

    python examples/mlp.py [--epochs 100] [--batch-size 64] [--seed 0] [--save model.pt] [--device lazy]
    python -m ember.distributed.run --nproc-per-node 2 examples/mlp.py

Started by the launcher, each process trains a DistributedDataParallel
replica on its share of every batch; the replicas' gradients are averaged, so
the result equals one process training on the whole batches. With
--device lazy the model trains on the lazy device (ember.lazy): each step is
recorded as a graph, compiled on its first occurrence and replayed after.

The data is generated here (no downloads): points on two noisy spiral arms in
the plane, one class per arm. A 2-64-64-2 ReLU network with Adam separates
them; the script prints a progress bar, the loss and accuracy as it goes, and
a final line comparing the last loss with the first.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ember
import ember.nn as nn
import ember.nn.functional as F
from progress import Progress


def spirals(n_per_class, noise=0.08):
    """Two spiral arms, half a turn apart: (points [2n, 2], labels [2n])."""
    t = ember.rand(n_per_class) * 3 * math.pi + 0.5
    arms = []
    for k in range(2):
        angle = t + k * math.pi
        radius = t / (3 * math.pi)
        xy = ember.stack([radius * angle.cos(), radius * angle.sin()], dim=1)
        arms.append(xy + noise * ember.randn(n_per_class, 2))
    points = ember.cat(arms)
    labels = ember.cat([ember.zeros(n_per_class, dtype=ember.int64), ember.ones(n_per_class, dtype=ember.int64)])
    return points, labels


def build_model(hidden=64):
    return nn.Sequential(
        nn.Linear(2, hidden),
        nn.ReLU(),
        nn.Linear(hidden, hidden),
        nn.ReLU(),
        nn.Linear(hidden, 2),
    )


def accuracy(model, points, labels):
    with ember.no_grad():
        return (model(points).argmax(dim=1) == labels).float().mean().item()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--samples", type=int, default=1000, help="points per class")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", help="write the trained model's state_dict here (rank 0)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "lazy"],
                        help="train on the CPU, or on the lazy device (graphs compiled once, then replayed)")
    args = parser.parse_args(argv)

    distributed = "RANK" in os.environ  # started by python -m ember.distributed.run
    rank, world = 0, 1
    if distributed:
        ember.distributed.init_process_group("gloo")
        rank, world = ember.distributed.get_rank(), ember.distributed.get_world_size()
    ember.manual_seed(args.seed)  # the same data, model and batch order on every rank
    train_x, train_y = spirals(args.samples)
    test_x, test_y = spirals(args.samples // 4)
    model = build_model().to(args.device)
    trained = model
    if distributed:
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)

    n = train_x.shape[0]
    batches = math.ceil(n / args.batch_size)
    progress = Progress(args.epochs * batches, desc="mlp" if not distributed else f"mlp rank {rank}/{world}")
    first_loss = last_loss = None
    for epoch in range(args.epochs):
        order = ember.randperm(n)
        epoch_loss = 0.0
        for b in range(batches):
            idx = order[b * args.batch_size : (b + 1) * args.batch_size]
            share = -(-len(idx) // world)  # this replica's share of the batch
            idx = idx[rank * share : (rank + 1) * share]
            loss = F.cross_entropy(model(train_x[idx].to(args.device)), train_y[idx].to(args.device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if args.device == "lazy":
                ember.lazy.mark_step()  # run this step's graph (compiled once, then found in the cache)
            epoch_loss += loss.item()
            progress.update(epoch=epoch + 1, loss=loss.item())
        last_loss = epoch_loss / batches
        if first_loss is None:
            first_loss = last_loss

    if rank == 0:
        print(f"test accuracy {accuracy(trained, test_x.to(args.device), test_y.to(args.device)):.3f}")
        print(f"final loss {last_loss:.4f} (initial {first_loss:.4f})")
        if args.save:
            ember.save({k: v.cpu() for k, v in trained.state_dict().items()}, args.save)
    if distributed:
        ember.distributed.destroy_process_group()
    return first_loss, last_loss


if __name__ == "__main__":
    main()
