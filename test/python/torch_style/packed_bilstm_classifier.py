"""Variable-length sequence classification the way the common RNN examples
write it: token sequences of different lengths padded by a collate_fn with
pad_sequence, nn.Embedding with padding_idx, a 2-layer bidirectional LSTM
over pack_padded_sequence(enforce_sorted=False), the final forward and
backward hidden states concatenated, dropout 0, Adam with a ReduceLROnPlateau
schedule, gradient clipping, and accuracy on held-out sequences.
"""
import ember as torch
import ember.nn as nn
from ember.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from ember.utils.data import DataLoader, Dataset

torch.manual_seed(0)
VOCAB, PAD = 20, 0


class Sequences(Dataset):
    """Class 1 if token 7 occurs more often than token 3, else 0."""

    def __init__(self, n):
        self.items = []
        for _ in range(n):
            length = int(torch.randint(3, 12, (1,)))
            seq = torch.randint(1, VOCAB, (length,))
            self.items.append((seq, int((seq == 7).sum() > (seq == 3).sum())))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True, padding_value=PAD), lengths, torch.tensor(labels)


class Classifier(nn.Module):
    def __init__(self, embed=8, hidden=12):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, embed, padding_idx=PAD)
        self.lstm = nn.LSTM(embed, hidden, num_layers=2, bidirectional=True, batch_first=True, dropout=0.0)
        self.fc = nn.Linear(2 * hidden, 2)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embedding(tokens), lengths, batch_first=True, enforce_sorted=False)
        output, (hidden, cell) = self.lstm(packed)
        unpacked, out_lengths = pad_packed_sequence(output, batch_first=True)
        assert torch.equal(out_lengths, lengths)
        return self.fc(torch.cat((hidden[-2], hidden[-1]), dim=1))


train = DataLoader(Sequences(96), batch_size=16, shuffle=True, collate_fn=collate)
test = DataLoader(Sequences(48), batch_size=24, collate_fn=collate)
model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1)
criterion = nn.CrossEntropyLoss()
for epoch in range(5):
    model.train()
    total = 0.0
    for tokens, lengths, labels in train:
        optimizer.zero_grad()
        loss = criterion(model(tokens, lengths), labels)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        total += loss.item() * labels.size(0)
    scheduler.step(total)
    model.eval()
    with torch.no_grad():
        correct = sum((model(t, l).argmax(1) == y).sum().item() for t, l, y in test)
    print(f"epoch {epoch}: loss {total / len(train.dataset):.4f} acc {correct / len(test.dataset):.4f} "
          f"lr {optimizer.param_groups[0]['lr']:.4f}")
