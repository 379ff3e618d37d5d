"""A small image classifier trained the way tutorials write it: device
selection, cudnn.benchmark, a Dataset of generated images behind a shuffled
DataLoader, a Conv2d/BatchNorm2d/max-pool network, Adam with a cosine
schedule, a GradScaler that is on only with a GPU, evaluation under
no_grad, and a checkpoint saved, loaded into a fresh model and checked.
"""

import os
import tempfile

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, Dataset

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.backends.cudnn.benchmark = True


class Shapes(Dataset):
    """12x12 images of a bright square (label 0) or a bright bar (label 1), at a seeded place."""

    def __init__(self, count, seed):
        generator = torch.Generator().manual_seed(seed)
        self.images = torch.rand(count, 1, 12, 12, generator=generator) * 0.3
        self.labels = torch.randint(0, 2, (count,), generator=generator)
        corners = torch.randint(0, 8, (count, 2), generator=generator)
        for i in range(count):
            r, c = corners[i].tolist()
            if self.labels[i] == 0:
                self.images[i, 0, r:r + 4, c:c + 4] += 1.0
            else:
                self.images[i, 0, r:r + 1, :] += 1.0

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1, bias=False)  # BatchNorm follows: a bias would only drift
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc = nn.Linear(16 * 3 * 3, 2)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def evaluate(model, loader):
    model.eval()
    correct = total_loss = 0.0
    with torch.no_grad():
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            logits = model(images)
            total_loss += F.cross_entropy(logits, labels, reduction="sum").item()
            correct += (logits.argmax(1) == labels).sum().item()
    return total_loss / len(loader.dataset), correct / len(loader.dataset)


def main(epochs=2):
    torch.manual_seed(1)
    train = DataLoader(Shapes(256, seed=2), batch_size=32, shuffle=True)
    test = DataLoader(Shapes(64, seed=3), batch_size=64)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(train))
    scaler = torch.amp.GradScaler(device, enabled=torch.cuda.is_available())
    for epoch in range(epochs):
        model.train()
        for images, labels in train:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(images), labels)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
        test_loss, accuracy = evaluate(model, test)
        print(f"epoch {epoch} train loss {loss.item():.5f} test loss {test_loss:.5f} accuracy {accuracy:.4f}")

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.pt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epochs}, path)
        checkpoint = torch.load(path)
        restored = Net().to(device)
        restored.load_state_dict(checkpoint["model"])
        print(f"restored epoch {checkpoint['epoch']} test loss {evaluate(restored, test)[0]:.5f}")


if __name__ == "__main__":
    main()
