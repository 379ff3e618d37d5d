"""Train a small CNN to recognise shapes in generated 16x16 images.

    python examples/cnn.py [--epochs 8] [--batch-size 32] [--workers 2] [--seed 0]

Four classes, drawn here with tensor ops (no downloads): a horizontal bar, a
vertical bar, a diagonal line and a filled square, each at a random place and
buried in noise. The network is two Conv2d-BatchNorm2d-ReLU-max_pool2d stages
and a Linear head, trained with SGD + momentum under a cosine learning-rate
schedule; it is evaluated in eval mode (BatchNorm's running statistics) under
no_grad after every epoch. Batches come from a DataLoader that shuffles the
training set each epoch and collates in worker processes (the batches reach
the training loop through shared memory).
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ember
import ember.nn as nn
from ember.utils.data import DataLoader, TensorDataset
import ember.nn.functional as F
from progress import Progress

SIZE = 16
CLASSES = ("horizontal", "vertical", "diagonal", "square")


def shapes(n, noise=0.6):
    """``n`` noisy images [n, 1, 16, 16] and their labels [n]."""
    labels = ember.randint(0, len(CLASSES), (n,))
    rows = ember.arange(SIZE).view(1, SIZE, 1)
    cols = ember.arange(SIZE).view(1, 1, SIZE)
    # Random positions, one per image, broadcast against the pixel grid.
    r = ember.randint(2, SIZE - 3, (n, 1, 1))
    c = ember.randint(2, SIZE - 3, (n, 1, 1))
    offset = ember.randint(-4, 5, (n, 1, 1))
    horizontal = rows == r
    vertical = cols == c
    diagonal = rows - cols == offset
    square = ((rows - r).abs() <= 1) & ((cols - c).abs() <= 1)
    drawn = ember.stack([m.expand(n, SIZE, SIZE) for m in (horizontal, vertical, diagonal, square)])
    pick = labels.view(1, n, 1, 1).expand(1, n, SIZE, SIZE)
    images = drawn.gather(0, pick).squeeze(0).float()
    images = images + noise * ember.randn(n, SIZE, SIZE)
    return images.unsqueeze(1), labels


class ShapeNet(nn.Module):
    def __init__(self, channels=(8, 16)):
        super().__init__()
        c1, c2 = channels
        self.conv1 = nn.Conv2d(1, c1, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(c1)
        self.conv2 = nn.Conv2d(c1, c2, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(c2)
        self.dropout = nn.Dropout(0.1)
        self.head = nn.Linear(c2 * (SIZE // 4) ** 2, len(CLASSES))

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.head(self.dropout(x.flatten(1)))


def evaluate(model, images, labels):
    model.eval()
    with ember.no_grad():
        logits = model(images)
        loss = F.cross_entropy(logits, labels).item()
        acc = (logits.argmax(dim=1) == labels).float().mean().item()
    model.train()
    return loss, acc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--samples", type=int, default=4000, help="training images")
    parser.add_argument("--workers", type=int, default=2, help="DataLoader worker processes (0: none)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    ember.manual_seed(args.seed)
    train_x, train_y = shapes(args.samples)
    test_x, test_y = shapes(max(args.samples // 4, 64))
    model = ShapeNet()
    optimizer = ember.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=args.batch_size, shuffle=True,
                        num_workers=args.workers, persistent_workers=args.workers > 0,
                        generator=ember.Generator().manual_seed(args.seed))
    batches = len(loader)
    scheduler = ember.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * batches)

    first_loss, _ = evaluate(model, test_x, test_y)
    progress = Progress(args.epochs * batches, desc="cnn")
    for epoch in range(args.epochs):
        for images, labels in loader:
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            progress.update(epoch=epoch + 1, loss=loss.item(), lr=f"{scheduler.get_last_lr()[0]:.4f}")
        test_loss, test_acc = evaluate(model, test_x, test_y)
        progress.log(f"epoch {epoch + 1}: test loss {test_loss:.4f}, accuracy {test_acc:.3f}")

    print(f"final loss {test_loss:.4f} (initial {first_loss:.4f})")
    return first_loss, test_loss


if __name__ == "__main__":
    main()
