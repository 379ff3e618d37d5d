"""Train a tiny character-level transformer language model on a text file.

    python examples/char_transformer.py [--steps 800] [--text examples/data/embers.txt]
                                        [--batch-size 32] [--seed 0] [--save model.ember] [--autocast]
                                        [--device lazy]

The model is a small GPT: character embeddings plus learned position
embeddings, pre-norm blocks of causal nn.MultiheadAttention and a GELU MLP
(with LayerNorm and Dropout), and a linear head over the characters. It trains
with AdamW, gradient clipping and a warmup-then-cosine schedule, reports the
held-out loss, then samples a few lines of text. With --save the trained
weights go through ember.save / ember.load and the reloaded model is checked
to give the same loss. With --autocast the training steps run in mixed
precision (bfloat16 matrix products under ember.autocast, the loss scaled by
ember.amp.GradScaler). With --device lazy it trains on the lazy device
(ember.lazy): each step is recorded as a graph, compiled on its first
occurrence and replayed after; sampling then runs on the CPU.
"""
import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ember
import ember.nn as nn
import ember.nn.functional as F
from progress import Progress


class Block(nn.Module):
    def __init__(self, dim, heads, dropout):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(dropout))

    def forward(self, x, causal_mask):
        h = self.norm1(x)
        attended, _ = self.attn(h, h, h, attn_mask=causal_mask, need_weights=False)
        x = x + attended
        return x + self.mlp(self.norm2(x))


class CharTransformer(nn.Module):
    def __init__(self, vocab_size, context, dim=64, heads=4, layers=2, dropout=0.1):
        super().__init__()
        self.context = context
        self.token = nn.Embedding(vocab_size, dim)
        self.position = nn.Embedding(context, dim)
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(dim, heads, dropout) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab_size)
        # True above the diagonal: position i may not look at positions after it.
        self.register_buffer("causal_mask", ember.ones(context, context, dtype=ember.bool).triu(1), persistent=False)

    def forward(self, tokens):
        t = tokens.shape[1]
        x = self.dropout(self.token(tokens) + self.position(ember.arange(t, device=tokens.device)))
        mask = self.causal_mask[:t, :t]
        for block in self.blocks:
            x = block(x, mask)
        return self.head(self.norm(x))

    def loss(self, tokens, targets):
        logits = self(tokens)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    @ember.no_grad()
    def generate(self, prompt, length, temperature=0.8):
        tokens = prompt
        for _ in range(length):
            logits = self(tokens[:, -self.context :])[:, -1] / temperature
            next_token = ember.multinomial(F.softmax(logits, dim=-1), 1)
            tokens = ember.cat([tokens, next_token], dim=1)
        return tokens


class CharCodec:
    def __init__(self, text):
        self.chars = sorted(set(text))
        self.index = {c: i for i, c in enumerate(self.chars)}

    def encode(self, text):
        return ember.tensor([self.index[c] for c in text], dtype=ember.int64)

    def decode(self, tokens):
        return "".join(self.chars[i] for i in tokens.tolist())


def batch(data, batch_size, context):
    """``batch_size`` random windows of ``context`` characters and the same windows shifted by one."""
    starts = ember.randint(0, data.shape[0] - context - 1, (batch_size, 1))
    offsets = starts + ember.arange(context + 1)
    windows = data[offsets]
    return windows[:, :-1], windows[:, 1:]


def held_out_loss(model, data, context, batches=8, batch_size=32, device="cpu"):
    model.eval()
    with ember.no_grad():
        total = sum(model.loss(*(t.to(device) for t in batch(data, batch_size, context))).item()
                    for _ in range(batches))
    model.train()
    return total / batches


def lr_at(step, total, warmup, peak):
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = (step - warmup) / max(total - warmup, 1)
    return peak * 0.5 * (1 + math.cos(math.pi * progress))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--text", default=os.path.join(HERE, "data", "embers.txt"))
    parser.add_argument("--steps", type=int, default=800)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--context", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample-chars", type=int, default=200)
    parser.add_argument("--save", metavar="PATH", help="save the trained weights there and check they load back")
    parser.add_argument("--autocast", action="store_true", help="train in mixed precision (CPU bfloat16 autocast)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "lazy"],
                        help="train on the CPU, or on the lazy device (graphs compiled once, then replayed)")
    args = parser.parse_args(argv)

    ember.manual_seed(args.seed)
    with open(args.text, encoding="utf-8") as f:
        text = f.read()
    codec = CharCodec(text)
    data = codec.encode(text)
    split = int(0.9 * data.shape[0])
    train_data, val_data = data[:split], data[split:]

    model = CharTransformer(len(codec.chars), args.context).to(args.device)
    decay = [p for name, p in model.named_parameters() if p.dim() >= 2 and "position" not in name]
    no_decay = [p for name, p in model.named_parameters() if p.dim() < 2 or "position" in name]
    optimizer = ember.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}], lr=args.lr
    )
    parameters = sum(p.numel() for p in model.parameters())
    print(f"{len(text)} characters, vocabulary {len(codec.chars)}, {parameters} parameters")

    first_loss = held_out_loss(model, val_data, args.context, device=args.device)
    # Loss scaling matters for float16; for bfloat16 it is a no-op that scripts keep.
    scaler = ember.amp.GradScaler("cpu", enabled=args.autocast)
    progress = Progress(args.steps, desc="lm")
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, args.steps, warmup=max(args.steps // 10, 1), peak=args.lr)
        with ember.autocast("cpu", enabled=args.autocast):
            loss = model.loss(*(t.to(args.device) for t in batch(train_data, args.batch_size, args.context)))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # clip the true gradients
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        if args.device == "lazy":
            ember.lazy.mark_step()  # run this step's graph (compiled once, then found in the cache)
        progress.update(loss=loss.item())
    last_loss = held_out_loss(model, val_data, args.context, device=args.device)
    model.cpu()  # sampling grows the input one character at a time: a new shape per step, so on the CPU

    prompt = codec.encode("The smith").unsqueeze(0)
    print("sample:", codec.decode(model.generate(prompt, args.sample_chars)[0]), sep="\n")

    if args.save:
        ember.save(model.state_dict(), args.save)
        reloaded = CharTransformer(len(codec.chars), args.context)
        reloaded.load_state_dict(ember.load(args.save))
        ember.manual_seed(args.seed + 1)
        a = held_out_loss(model, val_data, args.context)
        ember.manual_seed(args.seed + 1)
        b = held_out_loss(reloaded, val_data, args.context)
        print(f"saved to {args.save}; reloaded model's loss {b:.4f} (trained {a:.4f})")

    print(f"final loss {last_loss:.4f} (initial {first_loss:.4f})")
    return first_loss, last_loss


if __name__ == "__main__":
    main()
