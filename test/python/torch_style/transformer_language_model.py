"""A small character-level GPT-style model the way the well-known small
projects write it: text read from a file, random blocks as batches, token and
learned position embeddings, a causal nn.TransformerEncoder (pre-norm, GELU),
weight decay only on matrices through AdamW parameter groups, warmup with
LambdaLR, gradient clipping, periodic evaluation without grad, a checkpoint
saved and restored, and sampling with multinomial.

DROPOUT is 0 so that the run can be compared number for number with torch's:
the two libraries draw dropout masks from different random streams.
"""

import math
import os
import tempfile

import ember as torch
import ember.nn as nn
from ember.nn import functional as F

torch.manual_seed(42)
DROPOUT = 0.0
block_size, batch_size, n_embd, n_head, n_layer = 16, 8, 32, 4, 2


def write_text(path):
    verses = ["twinkle twinkle little star\n", "how i wonder what you are\n", "up above the world so high\n",
              "like a diamond in the sky\n"]
    with open(path, "w") as f:
        f.write("".join(verses * 20))


class GPT(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Parameter(torch.zeros(1, block_size, n_embd))
        layer = nn.TransformerEncoderLayer(n_embd, n_head, dim_feedforward=4 * n_embd, dropout=DROPOUT,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layer)
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(block_size))
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                module.bias.data.zero_()

    def forward(self, idx, targets=None):
        b, t = idx.size()
        x = self.tok_emb(idx) + self.pos_emb[:, :t, :]
        x = self.blocks(x, mask=self.mask[:t, :t], is_causal=True)
        logits = self.head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate):
        decay = [p for n, p in self.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in self.named_parameters() if p.dim() < 2]
        groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=learning_rate, betas=(0.9, 0.95))

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, generator):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -block_size:])
            probs = F.softmax(logits[:, -1, :], dim=-1)
            idx = torch.cat((idx, torch.multinomial(probs, num_samples=1, generator=generator)), dim=1)
        return idx


def main():
    workdir = tempfile.mkdtemp()
    path = os.path.join(workdir, "input.txt")
    write_text(path)
    with open(path) as f:
        text = f.read()
    chars = sorted(set(text))
    stoi = {ch: i for i, ch in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]

    def get_batch(split):
        source = train_data if split == "train" else val_data
        ix = torch.randint(len(source) - block_size - 1, (batch_size,))
        x = torch.stack([source[i:i + block_size] for i in ix])
        y = torch.stack([source[i + 1:i + block_size + 1] for i in ix])
        return x, y

    model = GPT(len(chars))
    print(f"{sum(p.numel() for p in model.parameters())} parameters")
    optimizer = model.configure_optimizers(weight_decay=0.1, learning_rate=3e-3)
    warmup = 10
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / warmup))

    @torch.no_grad()
    def estimate_loss():
        model.eval()
        out = {}
        for split in ("train", "val"):
            losses = torch.zeros(5)
            for k in range(5):
                _, loss = model(*get_batch(split))
                losses[k] = loss.item()
            out[split] = losses.mean().item()
        model.train()
        return out

    for step in range(61):
        if step % 20 == 0:
            losses = estimate_loss()
            print(f"step {step}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}, "
                  f"lr {scheduler.get_last_lr()[0]:.5f}")
        _, loss = model(*get_batch("train"))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
    assert losses["val"] < math.log(len(chars)), "the model learned nothing"

    checkpoint = os.path.join(workdir, "ckpt.pt")
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, checkpoint)
    restored = GPT(len(chars))
    restored.load_state_dict(torch.load(checkpoint)["model"])
    restored.eval()
    model.eval()
    x, _ = get_batch("val")
    print(f"restored model agrees: {torch.allclose(model(x)[0], restored(x)[0])}")

    generator = torch.Generator().manual_seed(0)
    sample = restored.generate(torch.zeros((1, 1), dtype=torch.long), 40, generator)[0].tolist()
    print("sample:", "".join(chars[i] for i in sample).replace("\n", "|"))


if __name__ == "__main__":
    main()
