"""A small vision transformer trained the way the popular ViT/DeiT training
scripts do it: patch embedding with a strided Conv2d, a class token and
learned position embeddings, pre-norm blocks on nn.MultiheadAttention
(batch_first) with stochastic depth (DropPath from new_empty().bernoulli_),
trunc_normal_ init, mixup (np.random.beta + randperm), label-smoothed cross
entropy on soft targets, AdamW with a no-decay list, OneCycleLR, gradient
accumulation, random_split, and evaluation under inference_mode.
DROP_PATH is 0 in training so that the run compares number for number with
torch (the two libraries draw masks from different streams).
"""
import math

import numpy as np

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
np.random.seed(0)
IMG, PATCH, DIM, DEPTH, HEADS, CLASSES, DROP_PATH = 8, 4, 16, 2, 2, 3, 0.0


class DropPath(nn.Module):
    def __init__(self, drop_prob=0.0):
        super().__init__()
        self.drop_prob = drop_prob

    def forward(self, x):
        if self.drop_prob == 0.0 or not self.training:
            return x
        keep_prob = 1 - self.drop_prob
        shape = (x.shape[0],) + (1,) * (x.ndim - 1)
        random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
        return x * random_tensor / keep_prob


class Block(nn.Module):
    def __init__(self, dim, heads, drop_path):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.drop_path = DropPath(drop_path)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.drop_path(self.attn(h, h, h, need_weights=False)[0])
        return x + self.drop_path(self.mlp(self.norm2(x)))


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch_embed = nn.Conv2d(1, DIM, kernel_size=PATCH, stride=PATCH)
        num_patches = (IMG // PATCH) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.zeros(1, num_patches + 1, DIM))
        dpr = [x.item() for x in torch.linspace(0, DROP_PATH, DEPTH)]
        self.blocks = nn.ModuleList([Block(DIM, HEADS, dpr[i]) for i in range(DEPTH)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)
        nn.init.trunc_normal_(self.pos_embed, std=0.02)
        nn.init.trunc_normal_(self.cls_token, std=0.02)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.constant_(m.bias, 0)
        elif isinstance(m, nn.LayerNorm):
            nn.init.constant_(m.bias, 0)
            nn.init.constant_(m.weight, 1.0)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        cls_tokens = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat((cls_tokens, x), dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x)[:, 0])


def make_data(n):
    """Three classes: a bright row, a bright column, or a bright diagonal, with noise."""
    labels = torch.arange(n) % CLASSES
    images = torch.randn(n, 1, IMG, IMG) * 0.3
    for i in range(n):
        k = int(torch.randint(0, IMG, (1,)))
        if labels[i] == 0:
            images[i, 0, k, :] += 2.0
        elif labels[i] == 1:
            images[i, 0, :, k] += 2.0
        else:
            images[i, 0] += 2.0 * torch.eye(IMG)
    return TensorDataset(images, labels)


def mixup(x, y, alpha=0.4):
    lam = float(np.random.beta(alpha, alpha))
    index = torch.randperm(x.size(0))
    mixed = lam * x + (1 - lam) * x[index]
    targets = F.one_hot(y, CLASSES).float()
    return mixed, lam * targets + (1 - lam) * targets[index]


data = make_data(72)
train_set, val_set = random_split(data, [48, 24], generator=torch.Generator().manual_seed(1))
loader = DataLoader(train_set, batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(2))
model = ViT()
no_decay = ["bias", "norm", "cls_token", "pos_embed"]
groups = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.05},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(groups, lr=1e-3)
epochs, accumulation = 4, 2
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-3, total_steps=epochs * len(loader) // accumulation)


@torch.inference_mode()
def evaluate():
    model.eval()
    correct = total = 0
    for images, labels in DataLoader(val_set, batch_size=12):
        correct += (model(images).argmax(dim=1) == labels).sum().item()
        total += labels.numel()
    model.train()
    return correct / total


for epoch in range(epochs):
    running = 0.0
    for step, (images, labels) in enumerate(loader):
        images, soft = mixup(images, labels)
        loss = F.cross_entropy(model(images), soft, label_smoothing=0.1) / accumulation
        loss.backward()
        running += loss.item()
        if (step + 1) % accumulation == 0:
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
    print(f"epoch {epoch} loss {running / len(loader):.4f} lr {scheduler.get_last_lr()[0]:.6f} "
          f"val acc {evaluate():.4f}")
print("parameters:", sum(p.numel() for p in model.parameters()), "finite:", math.isfinite(running))
