"""Policy-gradient training the way small RL examples write it: a softmax
policy over actions as a Categorical (sample, log_prob, entropy bonus), a
Gaussian policy with Normal.rsample and a KL penalty against the previous
policy (kl_divergence), returns normalized with quantiles and nanmean, and
a value baseline trained with smooth L1; all on a synthetic contextual
bandit so that it runs in a second.
"""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.distributions import Categorical, Normal, kl_divergence

torch.manual_seed(3)

N_CONTEXT, N_ACTIONS = 6, 4


def reward_of(context, action):
    """The best action for context c is c % N_ACTIONS; the others pay less."""
    best = context.argmax(-1) % N_ACTIONS
    return torch.where(action == best, torch.ones_like(best, dtype=torch.float32), torch.full_like(best, -0.2,
                                                                                                   dtype=torch.float32))


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(N_CONTEXT, 32), nn.Tanh())
        self.logits = nn.Linear(32, N_ACTIONS)
        self.value = nn.Linear(32, 1)
        self.mean = nn.Linear(32, 2)
        self.log_std = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        h = self.body(x)
        return Categorical(logits=self.logits(h)), self.value(h).squeeze(-1), Normal(self.mean(h), self.log_std.exp())


def main():
    policy = Policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-2)
    target = torch.tensor([0.5, -1.0])
    for step in range(1, 41):
        contexts = F.one_hot(torch.randint(0, N_CONTEXT, (64,)), N_CONTEXT).float()
        dist, value, gaussian = policy(contexts)
        actions = dist.sample()
        rewards = reward_of(contexts, actions)
        low, high = torch.quantile(rewards, torch.tensor([0.1, 0.9]))
        clipped = rewards.clamp(low.item(), high.item())
        advantage = clipped - value.detach()
        advantage = (advantage - torch.nanmean(advantage)) / (advantage.std() + 1e-6)
        policy_loss = -(dist.log_prob(actions) * advantage).mean() - 0.01 * dist.entropy().mean()
        value_loss = F.smooth_l1_loss(value, rewards)
        moves = gaussian.rsample()
        with torch.no_grad():
            previous = Normal(gaussian.loc.detach(), gaussian.scale.detach())
        gaussian_loss = (moves - target).pow(2).sum(-1).mean() + 0.1 * kl_divergence(gaussian, previous).sum(-1).mean()
        loss = policy_loss + 0.5 * value_loss + 0.1 * gaussian_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 10 == 0:
            greedy = dist.probs.argmax(-1)
            accuracy = (greedy == contexts.argmax(-1) % N_ACTIONS).float().mean()
            print(f"step {step} reward {rewards.mean().item():.4f} value loss {value_loss.item():.4f} "
                  f"accuracy {accuracy.item():.4f} mean {gaussian.mean.mean(0).tolist()[0]:.4f}")
    print(f"final log_std {policy.log_std.detach().tolist()[0]:.4f} entropy {dist.entropy().mean().item():.4f}")


if __name__ == "__main__":
    main()
