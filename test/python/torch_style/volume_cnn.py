"""A 3-d CNN classifying small volumes, as medical-imaging and video
examples do: Conv3d, BatchNorm3d, MaxPool3d, AdaptiveAvgPool3d and a
transposed-convolution decoder for an auxiliary reconstruction loss; Adam
with weight decay, train/eval modes, accuracy. The volumes are generated:
a bright cube, a bright slab or noise only.
"""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

torch.manual_seed(1)


def make_volumes(n, generator):
    labels = torch.randint(0, 3, (n,), generator=generator)
    volumes = torch.randn(n, 1, 8, 8, 8, generator=generator) * 0.5
    for i in range(n):
        start = int(torch.randint(0, 4, (1,), generator=generator))
        if labels[i] == 0:
            volumes[i, 0, start:start + 4, start:start + 4, start:start + 4] += 1.5
        elif labels[i] == 1:
            volumes[i, 0, :, :, start:start + 2] += 1.5
    return volumes, labels


class VolumeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv3d(1, 6, 3, padding=1), nn.BatchNorm3d(6), nn.ReLU(), nn.MaxPool3d(2),
            nn.Conv3d(6, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Sequential(nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(8, 3))
        self.decoder = nn.ConvTranspose3d(8, 1, 2, stride=2)

    def forward(self, x):
        features = self.encoder(x)
        return self.head(features), self.decoder(features)


def main():
    generator = torch.Generator().manual_seed(2)
    x_train, y_train = make_volumes(48, generator)
    x_test, y_test = make_volumes(24, generator)
    model = VolumeNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-4)
    for epoch in range(1, 16):
        model.train()
        for start in range(0, 48, 16):
            x, y = x_train[start:start + 16], y_train[start:start + 16]
            logits, reconstruction = model(x)
            loss = F.cross_entropy(logits, y) + 0.1 * F.mse_loss(reconstruction, x)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 5 == 0:
            model.eval()
            with torch.no_grad():
                accuracy = (model(x_test)[0].argmax(1) == y_test).float().mean().item()
            print(f"epoch {epoch}: loss {loss.item():.4f}, test accuracy {accuracy:.4f}")
    assert accuracy > 0.6, "the model learned nothing"


if __name__ == "__main__":
    main()
