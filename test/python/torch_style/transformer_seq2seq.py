"""Sequence-to-sequence with nn.Transformer the way the translation tutorial
writes it: token embeddings scaled by sqrt(d_model) plus a sinusoidal
PositionalEncoding buffer, src/tgt key-padding masks and a causal mask from
Transformer.generate_square_subsequent_mask, teacher forcing with the target
shifted by one, CrossEntropyLoss(ignore_index=PAD), Adam with the inverse
square-root warmup schedule (LambdaLR), and greedy decoding. The task: copy
a digit string and append its reverse.
"""
import math

import ember as torch
import ember.nn as nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)  # (float32 noise grows chaotically in this short, hot run)
PAD, BOS, EOS, VOCAB, D = 0, 1, 2, 13, 32


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.0, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x):  # (seq, batch, d)
        return self.dropout(x + self.pe[:x.size(0)])


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = PositionalEncoding(D)
        self.transformer = nn.Transformer(d_model=D, nhead=4, num_encoder_layers=2, num_decoder_layers=2,
                                          dim_feedforward=64, dropout=0.0)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, src, tgt):
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(0))
        src_pad, tgt_pad = (src == PAD).t(), (tgt == PAD).t()
        h = self.transformer(self.pos(self.embed(src) * math.sqrt(D)), self.pos(self.embed(tgt) * math.sqrt(D)),
                             tgt_mask=tgt_mask, src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
                             memory_key_padding_mask=src_pad)
        return self.out(h)


def batch(n):
    srcs, tgts = [], []
    for _ in range(n):
        digits = torch.randint(3, VOCAB, (int(torch.randint(2, 5, (1,))),)).tolist()
        srcs.append(digits + [EOS])
        tgts.append([BOS] + digits + digits[::-1] + [EOS])
    pad = lambda seqs: torch.tensor([s + [PAD] * (max(map(len, seqs)) - len(s)) for s in seqs]).t()  # noqa: E731
    return pad(srcs), pad(tgts)


model = Seq2Seq()
criterion = nn.CrossEntropyLoss(ignore_index=PAD)
optimizer = torch.optim.Adam(model.parameters(), lr=0.3, betas=(0.9, 0.98), eps=1e-9)
warmup = 20
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda step: D ** -0.5 * min((step + 1) ** -0.5, (step + 1) * warmup ** -1.5))
for step in range(40):
    src, tgt = batch(16)
    logits = model(src, tgt[:-1])
    loss = criterion(logits.reshape(-1, VOCAB), tgt[1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    if step % 10 == 9:
        print(f"step {step + 1}: loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.6f}")

model.eval()
src, _ = batch(2)
with torch.no_grad():
    ys = torch.full((1, src.size(1)), BOS, dtype=torch.long)
    for _ in range(10):
        next_token = model(src, ys)[-1].argmax(-1)
        ys = torch.cat([ys, next_token.unsqueeze(0)], dim=0)
print("source:", src.t().tolist())
print("greedy:", ys.t().tolist())
