"""A small training script written as a torch user writes one: a map-style
Dataset, a shuffled DataLoader with two persistent worker processes, an MLP, SGD with
momentum and a step schedule. It prints one line per epoch.

test_torch_style.py runs it as it is (``import ember as torch``) and with
torch in its place, and expects the same losses: same seed, same initial
weights, same batch order.
"""

import math

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, Dataset


class TwoSpirals(Dataset):
    """Points on two interleaved spirals; the label says which one."""

    def __init__(self, points_per_class=96):
        self.n = points_per_class

    def __len__(self):
        return 2 * self.n

    def __getitem__(self, index):
        label, k = divmod(index, self.n)
        angle = 0.25 + 3.0 * math.pi * k / self.n
        radius = 0.2 + 0.8 * k / self.n
        sign = 1.0 if label == 0 else -1.0
        point = torch.tensor([sign * radius * math.cos(angle), sign * radius * math.sin(angle)])
        return point, label


def main(epochs=3):
    torch.manual_seed(0)
    loader = DataLoader(TwoSpirals(), batch_size=16, shuffle=True, num_workers=2,
                        persistent_workers=True)
    model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    for epoch in range(epochs):
        model.train()
        total, seen, correct = 0.0, 0, 0
        for points, labels in loader:
            optimizer.zero_grad()
            logits = model(points)
            loss = F.cross_entropy(logits, labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
            seen += len(labels)
            correct += (logits.argmax(dim=1) == labels).sum().item()
        scheduler.step()
        print(f"epoch {epoch} loss {total / seen:.6f} accuracy {correct / seen:.4f}")


if __name__ == "__main__":
    main()
