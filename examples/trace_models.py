"""Trains a small MLP on generated data, then traces it, a CNN and a
transformer block with ember.jit.trace and saves, for each, the program with
its weights and an input with Python's output on it. examples/cpp/run_traced.cpp
runs the programs from C++ without Python and checks it gets the same outputs.

    python examples/trace_models.py OUT_DIR
"""

import pathlib
import sys

import ember as torch
import ember.nn as nn
import ember.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 32)
        self.fc2 = nn.Linear(32, 2)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def train_mlp():
    """Points of two classes: class 1 inside the unit circle."""
    torch.manual_seed(0)
    x = torch.randn(512, 2) * 1.2
    y = ((x * x).sum(1) < 1.0).long()
    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
    for step in range(200):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    accuracy = (model(x).argmax(1) == y).float().mean().item()
    print(f"trained the MLP: loss {loss.item():.3f}, accuracy {accuracy:.2%}")
    return model.eval(), (64, 2)


def cnn():
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(16, 10))
    return model.eval(), (4, 1, 28, 28)


def transformer_block():
    model = nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, batch_first=True, activation="gelu")
    return model.eval(), (2, 10, 32)


def main(out):
    out.mkdir(parents=True, exist_ok=True)
    for name, (model, shape) in {"mlp": train_mlp(), "cnn": cnn(), "transformer": transformer_block()}.items():
        with torch.no_grad():
            traced = torch.jit.trace(model, torch.randn(*shape))
            x = torch.randn(*shape)
            torch.jit.save(traced, out / f"{name}.ember")
            torch.save({"input": x, "output": model(x)}, out / f"{name}_io.ember")
        print(f"{name}: traced {len(traced.graph.node_kinds())} operator calls -> {out / name}.ember")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "traced"))
