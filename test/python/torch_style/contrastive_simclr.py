"""Contrastive representation learning the way SimCLR-style scripts write
it: two random augmentations per example (flips with torch.flip, shifts
with torch.roll, additive noise), an encoder and projection head, the
NT-Xent loss built from normalized embeddings (F.normalize, a similarity
matrix with its diagonal masked by masked_fill, positives found with
arange and cat, cross entropy with temperature), LARS-free AdamW with a
cosine schedule, then a linear probe trained on frozen features
(requires_grad_(False), detach) and its accuracy.
"""
import ember as torch
import ember.nn as nn
import ember.nn.functional as F

torch.manual_seed(0)
N, D = 48, 16


def make_data(n):
    labels = torch.arange(n) % 3
    base = torch.stack([torch.sin(torch.linspace(0, 3.14 * (k + 1), D)) for k in range(3)])
    return base[labels] + 0.3 * torch.randn(n, D), labels


def augment(x):
    flip = torch.rand(x.size(0), 1) < 0.5
    x = torch.where(flip, torch.flip(x, dims=[1]), x)
    x = torch.roll(x, shifts=int(torch.randint(-2, 3, (1,))), dims=1)
    return x + 0.1 * torch.randn_like(x)


def nt_xent(z1, z2, temperature=0.5):
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=1)
    n = z1.size(0)
    sim = torch.mm(z, z.t()) / temperature
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


encoder = nn.Sequential(nn.Linear(D, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 16))
projector = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8))
params = list(encoder.parameters()) + list(projector.parameters())
optimizer = torch.optim.AdamW(params, lr=3e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)
x, y = make_data(N)
for step in range(30):
    loss = nt_xent(projector(encoder(augment(x))), projector(encoder(augment(x))))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    if step % 10 == 9:
        print(f"step {step + 1}: NT-Xent {loss.item():.4f}")

encoder.eval()
encoder.requires_grad_(False)
with torch.no_grad():
    features = encoder(x).detach()
probe = nn.Linear(16, 3)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.5)
for _ in range(50):
    probe_opt.zero_grad()
    F.cross_entropy(probe(features), y).backward()
    probe_opt.step()
accuracy = (probe(features).argmax(1) == y).float().mean().item()
print(f"linear probe accuracy {accuracy:.4f}; encoder frozen: {not any(p.requires_grad for p in encoder.parameters())}")
