"""A word-level LSTM language model the way the common examples write it:
a corpus in a text file, a dictionary, batchify into columns, truncated
backpropagation through time with the hidden state carried over (and
detached) between chunks, tied embedding/decoder weights, dropout layers,
gradient clipping, plain SGD with the learning rate annealed when validation
stops improving, and perplexity.

DROPOUT is 0 so that the run can be compared number for number with torch's:
the two libraries draw dropout masks from different random streams.
"""

import math
import os
import tempfile

import ember as torch
import ember.nn as nn

torch.manual_seed(1234)
DROPOUT = 0.0


def write_corpus(path, sentences, seed):
    """Sentences from a tiny grammar, so that there is something to learn."""
    generator = torch.Generator().manual_seed(seed)
    subjects = ["the cat", "a dog", "the bird", "my friend", "the teacher"]
    verbs = ["sees", "likes", "follows", "finds", "helps"]
    objects = ["the ball", "a house", "the tree", "some water", "the garden"]
    with open(path, "w") as f:
        for _ in range(sentences):
            s, v, o = torch.randint(0, 5, (3,), generator=generator).tolist()
            f.write(f"{subjects[s]} {verbs[v]} {objects[o]} .\n")


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


def tokenize(path, dictionary):
    ids = []
    with open(path, encoding="utf8") as f:
        for line in f:
            for word in line.split() + ["<eos>"]:
                ids.append(dictionary.add_word(word))
    return torch.tensor(ids, dtype=torch.int64)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, dropout=DROPOUT):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight  # tied weights
        self.nhid, self.nlayers = nhid, nlayers
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return nn.functional.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def evaluate(model, source, bptt, criterion):
    model.eval()
    total_loss = 0.0
    hidden = model.init_hidden(source.size(1))
    with torch.no_grad():
        for i in range(0, source.size(0) - 1, bptt):
            data, targets = get_batch(source, i, bptt)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(source) - 1)


def main():
    workdir = tempfile.mkdtemp()
    train_path, valid_path = os.path.join(workdir, "train.txt"), os.path.join(workdir, "valid.txt")
    write_corpus(train_path, 300, seed=1)
    write_corpus(valid_path, 60, seed=2)
    dictionary = Dictionary()
    train_data = batchify(tokenize(train_path, dictionary), 10)
    val_data = batchify(tokenize(valid_path, dictionary), 5)
    ntokens, bptt = len(dictionary), 12
    print(f"vocabulary {ntokens}, train batches {train_data.shape}")

    model = RNNModel(ntokens, 32, 32, 2)
    criterion = nn.NLLLoss()
    lr, clip = 5.0, 0.25
    best_val_loss = None
    for epoch in range(1, 7):
        model.train()
        hidden = model.init_hidden(train_data.size(1))
        total = 0.0
        for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
            data, targets = get_batch(train_data, i, bptt)
            hidden = repackage_hidden(hidden)
            model.zero_grad()
            output, hidden = model(data, hidden)
            loss = criterion(output, targets)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-lr)
            total += loss.item()
        val_loss = evaluate(model, val_data, bptt, criterion)
        print(f"epoch {epoch} | lr {lr:.2f} | train loss {total / (batch + 1):.4f} | valid loss {val_loss:.4f} "
              f"| valid ppl {math.exp(val_loss):.4f}")
        if best_val_loss is None or val_loss < best_val_loss:
            best_val_loss = val_loss
        else:
            lr /= 4.0
    assert best_val_loss < math.log(ntokens), "the model learned nothing"


if __name__ == "__main__":
    main()
