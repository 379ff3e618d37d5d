"""Text classification the way the EmbeddingBag tutorials do it: variable
length token sequences concatenated into one flat tensor with offsets by a
DataLoader collate_fn, nn.EmbeddingBag (mean) + Linear, cross entropy, SGD
with gradient clipping and StepLR, accuracy on a held-out split. The
"texts" are generated: each class favours its own band of the vocabulary.
"""

import ember as torch
import ember.nn as nn
from ember.utils.data import DataLoader, Dataset

torch.manual_seed(0)
VOCAB, CLASSES = 60, 4


class Texts(Dataset):
    def __init__(self, n, generator):
        self.labels = torch.randint(0, CLASSES, (n,), generator=generator)
        self.lengths = torch.randint(3, 12, (n,), generator=generator)
        self.seeds = torch.randint(0, 2**31 - 1, (n,), generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(int(self.seeds[i]))
        label, length = int(self.labels[i]), int(self.lengths[i])
        band = torch.randint(label * 12, label * 12 + 15, (length,), generator=g)
        noise = torch.randint(0, VOCAB, (length,), generator=g)
        keep = torch.rand(length, generator=g) < 0.7
        return label, torch.where(keep, band, noise)


def collate_batch(batch):
    labels = torch.tensor([label for label, _ in batch], dtype=torch.int64)
    texts = [text for _, text in batch]
    offsets = torch.tensor([0] + [len(t) for t in texts[:-1]]).cumsum(dim=0)
    return labels, torch.cat(texts), offsets


class TextClassifier(nn.Module):
    def __init__(self, vocab, dim, classes):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.fc = nn.Linear(dim, classes)
        self.embedding.weight.data.uniform_(-0.5, 0.5)
        self.fc.weight.data.uniform_(-0.5, 0.5)
        self.fc.bias.data.zero_()

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for labels, text, offsets in loader:
            correct += (model(text, offsets).argmax(1) == labels).sum().item()
            total += labels.size(0)
    return correct / total


def main():
    generator = torch.Generator().manual_seed(4)
    train = DataLoader(Texts(320, generator), batch_size=16, shuffle=False, collate_fn=collate_batch)
    test = DataLoader(Texts(96, generator), batch_size=32, collate_fn=collate_batch)
    model = TextClassifier(VOCAB, 16, CLASSES)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=4.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1, gamma=0.5)
    for epoch in range(1, 5):
        model.train()
        total = 0.0
        for labels, text, offsets in train:
            optimizer.zero_grad()
            loss = criterion(model(text, offsets), labels)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            total += loss.item()
        scheduler.step()
        print(f"epoch {epoch}: loss {total / len(train):.4f}, test accuracy {evaluate(model, test):.4f}")
    assert evaluate(model, test) > 0.5, "the model learned nothing"


if __name__ == "__main__":
    main()
