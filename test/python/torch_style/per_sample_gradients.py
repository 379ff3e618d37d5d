"""What torch.func tutorials and DP-SGD-style scripts do: per-sample
gradients of a small classifier via vmap(grad(...)) over functional_call,
clipped per sample and averaged into the update (the DP-SGD step, without
the noise), a Newton-like step size from a Hessian-vector product
(autograd.functional.hvp), and model ensembling with vmap over stacked
parameters; all on generated data, in a second.
"""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.func import functional_call, grad, jacrev, vmap

torch.manual_seed(5)

N, D, CLASSES = 64, 6, 3
inputs = torch.randn(N, D)
labels = (inputs[:, 0] > 0).long() + (inputs[:, 1] > 0.5).long()

model = nn.Sequential(nn.Linear(D, 16), nn.Tanh(), nn.Linear(16, CLASSES))
params = {k: v.detach() for k, v in model.named_parameters()}


def sample_loss(p, x, y):
    logits = functional_call(model, p, (x.unsqueeze(0),))
    return F.cross_entropy(logits, y.unsqueeze(0))


per_sample_grad = vmap(grad(sample_loss), in_dims=(None, 0, 0))
CLIP, LR = 1.0, 0.5
for step in range(30):
    idx = torch.randperm(N)[:16]
    grads = per_sample_grad(params, inputs[idx], labels[idx])
    norms = torch.sqrt(sum((g.reshape(g.shape[0], -1) ** 2).sum(1) for g in grads.values()))
    scale = (CLIP / (norms + 1e-6)).clamp(max=1.0)
    params = {k: p - LR * (grads[k] * scale.view(-1, *([1] * (grads[k].dim() - 1)))).mean(0)
              for k, p in params.items()}
    if step % 10 == 9:
        loss = F.cross_entropy(functional_call(model, params, (inputs,)), labels)
        print(f"step {step + 1:2d}  loss {loss.item():.4f}  mean clipped norm {(norms * scale).mean().item():.4f}")

# The curvature along the averaged gradient, from a Hessian-vector product.
flat = torch.cat([p.reshape(-1) for p in params.values()])
shapes = [(k, p.shape, p.numel()) for k, p in params.items()]


def unflatten(v):
    out, start = {}, 0
    for k, shape, n in shapes:
        out[k] = v[start:start + n].reshape(shape)
        start += n
    return out


def full_loss(v):
    return F.cross_entropy(functional_call(model, unflatten(v), (inputs,)), labels)


g = torch.autograd.grad(full_loss(flat.requires_grad_()), flat)[0]
_, hv = torch.autograd.functional.hvp(full_loss, flat.detach(), g)
curvature = (g * hv).sum() / (g * g).sum()
print(f"curvature along the gradient {curvature.item():.4f}  step size {1 / curvature.item():.4f}")

# An ensemble of five models evaluated in one vmap over their stacked parameters.
members = [nn.Sequential(nn.Linear(D, 16), nn.Tanh(), nn.Linear(16, CLASSES)) for _ in range(5)]
stacked = {k: torch.stack([dict(m.named_parameters())[k].detach() for m in members]) for k in params}
ensemble_logits = vmap(lambda p, x: functional_call(model, p, (x,)), in_dims=(0, None))(stacked, inputs)
agree = (ensemble_logits.argmax(-1) == ensemble_logits.mean(0).argmax(-1)).float().mean()
print(f"ensemble logits {tuple(ensemble_logits.shape)}  agreement with the mean {agree.item():.4f}")

# The input-gradient of the trained model's top logit for the first sample (saliency).
saliency = jacrev(lambda x: functional_call(model, params, (x,)).max())(inputs[0])
print("saliency", " ".join(f"{v:.3f}" for v in saliency.tolist()))
