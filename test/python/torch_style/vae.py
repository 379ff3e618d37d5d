"""A variational autoencoder the way the common example writes it: images
from a Dataset behind a shuffled DataLoader, an encoder giving mean and
log-variance, the reparameterization trick with randn_like, a sigmoid
decoder, the loss as binary cross-entropy (summed) plus the KL term, Adam,
a test pass under no_grad, and samples decoded from the prior.
"""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)


def make_images(count, generator):
    """8x8 images in [0, 1]: a horizontal or a vertical stroke at a random row or column, slightly noisy."""
    images = torch.rand(count, 64, generator=generator) * 0.1
    kinds = torch.randint(0, 2, (count,), generator=generator)
    places = torch.randint(1, 7, (count,), generator=generator)
    grid = images.view(count, 8, 8)
    for i in range(count):
        if kinds[i] == 0:
            grid[i, places[i], :] = 0.9
        else:
            grid[i, :, places[i]] = 0.9
    return images


class VAE(nn.Module):
    def __init__(self, hidden=32, latent=4):
        super().__init__()
        self.fc1 = nn.Linear(64, hidden)
        self.fc21 = nn.Linear(hidden, latent)
        self.fc22 = nn.Linear(hidden, latent)
        self.fc3 = nn.Linear(latent, hidden)
        self.fc4 = nn.Linear(hidden, 64)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 64))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 64), reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def main():
    generator = torch.Generator().manual_seed(0)
    train = DataLoader(TensorDataset(make_images(256, generator)), batch_size=32, shuffle=True)
    test = DataLoader(TensorDataset(make_images(64, generator)), batch_size=32)
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(1, 6):
        model.train()
        train_loss = 0.0
        for (data,) in train:
            optimizer.zero_grad()
            recon, mu, logvar = model(data)
            loss = loss_function(recon, data, mu, logvar)
            loss.backward()
            train_loss += loss.item()
            optimizer.step()
        model.eval()
        test_loss = 0.0
        with torch.no_grad():
            for (data,) in test:
                recon, mu, logvar = model(data)
                test_loss += loss_function(recon, data, mu, logvar).item()
        print(f"epoch {epoch}: train loss {train_loss / len(train.dataset):.4f}, "
              f"test loss {test_loss / len(test.dataset):.4f}")
    with torch.no_grad():
        sample = model.decode(torch.randn(4, 4))
    print(f"samples {tuple(sample.shape)}, mean intensity {sample.mean().item():.4f}")
    assert test_loss / len(test.dataset) < 30.0, "the model learned nothing"


if __name__ == "__main__":
    main()
