"""A denoising diffusion model (DDPM) trained and sampled the way the small
diffusion tutorials write it: a linear beta schedule with cumprod'ed
alphas gathered per timestep, sinusoidal timestep embeddings, a tiny U-Net
(Conv2d, GroupNorm, SiLU, a strided down path and an Upsample + skip
concatenation on the way up), the epsilon-prediction MSE loss, Adam with
gradient clipping, and the ancestral sampling loop under no_grad.
"""
import math

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

torch.manual_seed(0)
T = 50
betas = torch.linspace(1e-4, 0.02, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
sqrt_ac, sqrt_1m_ac = alphas_cumprod.sqrt(), (1.0 - alphas_cumprod).sqrt()


def extract(a, t, shape):
    return a.gather(-1, t).reshape(t.shape[0], *((1,) * (len(shape) - 1)))


def timestep_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / (half - 1))
    args = t[:, None].float() * freqs[None]
    return torch.cat([torch.sin(args), torch.cos(args)], dim=-1)


class Block(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm1 = nn.GroupNorm(2, cout)
        self.time = nn.Linear(tdim, cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.norm2 = nn.GroupNorm(2, cout)

    def forward(self, x, temb):
        h = F.silu(self.norm1(self.conv1(x)))
        h = h + self.time(temb)[:, :, None, None]
        return F.silu(self.norm2(self.conv2(h)))


class TinyUNet(nn.Module):
    def __init__(self, ch=8, tdim=16):
        super().__init__()
        self.tdim = tdim
        self.time_mlp = nn.Sequential(nn.Linear(tdim, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.down = Block(1, ch, tdim)
        self.pool = nn.Conv2d(ch, ch, 4, stride=2, padding=1)
        self.mid = Block(ch, ch, tdim)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec = Block(2 * ch, ch, tdim)
        self.out = nn.Conv2d(ch, 1, 1)

    def forward(self, x, t):
        temb = self.time_mlp(timestep_embedding(t, self.tdim))
        h1 = self.down(x, temb)
        h = self.mid(self.pool(h1), temb)
        h = self.dec(torch.cat([self.up(h), h1], dim=1), temb)
        return self.out(h)


def data(n):
    """8x8 images of a bright square at a random place."""
    x = -torch.ones(n, 1, 8, 8)
    for i in range(n):
        r, c = torch.randint(0, 5, (2,)).tolist()
        x[i, :, r:r + 3, c:c + 3] = 1.0
    return x


model = TinyUNet()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(40):
    x0 = data(16)
    t = torch.randint(0, T, (x0.shape[0],))
    noise = torch.randn_like(x0)
    xt = extract(sqrt_ac, t, x0.shape) * x0 + extract(sqrt_1m_ac, t, x0.shape) * noise
    loss = F.mse_loss(model(xt, t), noise)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    if step % 10 == 9:
        print(f"step {step + 1}: loss {loss.item():.4f}")

with torch.no_grad():
    x = torch.randn(4, 1, 8, 8)
    for i in reversed(range(T)):
        t = torch.full((4,), i, dtype=torch.long)
        eps = model(x, t)
        mean = (x - betas[i] / sqrt_1m_ac[i] * eps) / alphas[i].sqrt()
        x = mean + (betas[i].sqrt() * torch.randn_like(x) if i > 0 else 0)
print(f"samples: mean {x.mean().item():.4f}, std {x.std().item():.4f}, range {x.min().item():.4f} .. {x.max().item():.4f}")
