"""Fits a correlated Gaussian by maximum a posteriori with constrained parameters: unconstrained
tensors mapped by transform_to onto positive scales and a correlation Cholesky factor, an LKJ prior
on the correlations and a log-normal prior on the scales; then a few cross-family KL divergences,
a Wishart density, an antialiased downsampling and the in-place view methods."""

import ember as torch
import ember.nn.functional as F
from ember.distributions import (Gamma, LKJCholesky, LogNormal, MultivariateNormal, Normal, Wishart, constraints,
                                 kl_divergence, transform_to)

torch.manual_seed(0)
true_L = torch.tensor([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [-0.3, 0.2, 0.93]])
scales = torch.tensor([1.0, 2.0, 0.5])
data = (torch.randn(500, 3) @ (scales[:, None] * true_L).T) + torch.tensor([1.0, -1.0, 0.5])

raw_loc = torch.zeros(3, requires_grad=True)
raw_scale = torch.zeros(3, requires_grad=True)
raw_corr = torch.zeros(3, requires_grad=True)
to_positive = transform_to(constraints.positive)
to_corr_cholesky = transform_to(constraints.corr_cholesky)
prior_corr = LKJCholesky(3, 2.0)
prior_scale = LogNormal(0.0, 1.0)
optimizer = torch.optim.Adam([raw_loc, raw_scale, raw_corr], lr=0.05)
for step in range(300):
    scale = to_positive(raw_scale)
    L = to_corr_cholesky(raw_corr)
    model = MultivariateNormal(raw_loc, scale_tril=scale[:, None] * L)
    log_prior = prior_corr.log_prob(L) + prior_scale.log_prob(scale).sum()
    loss = -(model.log_prob(data).mean() + log_prior / len(data))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 100 == 0:
        print(f"step {step} loss {loss.item():.4f}")

with torch.no_grad():
    L = to_corr_cholesky(raw_corr)
    correlation = L @ L.T
    print("loc", " ".join(f"{v:.3f}" for v in raw_loc.tolist()))
    print("scale", " ".join(f"{v:.3f}" for v in to_positive(raw_scale).tolist()))
    print("correlation", " ".join(f"{v:.3f}" for v in [correlation[1, 0].item(), correlation[2, 0].item(),
                                                        correlation[2, 1].item()]))
    print(f"kl gamma-normal {kl_divergence(Gamma(torch.tensor(2.0), torch.tensor(1.0)), Normal(torch.tensor(1.0), torch.tensor(2.0))).item():.5f}")
    print(f"wishart log_prob {Wishart(torch.tensor(5.0), covariance_matrix=torch.eye(3)).log_prob(torch.eye(3) * 4).item():.5f}")
    image = torch.rand(1, 3, 64, 64)
    small = F.interpolate(image, size=(16, 16), mode="bilinear", antialias=True)
    print(f"antialiased mean {small.mean().item():.5f} std {small.std().item():.5f}")
    x = torch.arange(20.0).reshape(4, 5)
    x.t_()
    x.unsqueeze_(0)
    print(f"in-place views {x.shape[0]}.0 {x.shape[1]}.0 {x.shape[2]}.0 {x[0, 1, 2].item():.1f}")
try:
    torch.linalg.cholesky(-torch.eye(2))
except torch.linalg.LinAlgError:
    print("not positive-definite: LinAlgError")
