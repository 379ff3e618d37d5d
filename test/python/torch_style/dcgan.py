"""A DCGAN trained the way the common GAN examples write it: a generator of
transposed convolutions with BatchNorm2d and ReLU ending in Tanh, a
discriminator of strided convolutions with LeakyReLU ending in Sigmoid,
weights initialized by class name through Module.apply, two Adam optimizers
with beta1 = 0.5, BCELoss against label tensors made with torch.full, the
discriminator step on real and detached fake images, the generator step
through the discriminator, and a fixed noise batch to watch progress.
The "images" are generated 16x16 blobs.
"""
import argparse

import ember as torch
import ember.nn as nn
import ember.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument("--nz", type=int, default=8)
parser.add_argument("--ngf", type=int, default=8)
parser.add_argument("--ndf", type=int, default=8)
parser.add_argument("--iters", type=int, default=12)
parser.add_argument("--lr", type=float, default=0.0002)
opt = parser.parse_args([])

torch.manual_seed(999)
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
real_label, fake_label = 1.0, 0.0


def make_images(n):
    """Bright Gaussian blobs at random places on a dark 16x16 canvas, in [-1, 1]."""
    coords = torch.arange(16, dtype=torch.float32)
    centers = torch.rand(n, 2) * 10 + 3
    dy = (coords.view(1, 16, 1) - centers[:, 0].view(n, 1, 1)) ** 2
    dx = (coords.view(1, 1, 16) - centers[:, 1].view(n, 1, 1)) ** 2
    return (torch.exp(-(dx + dy) / 8.0) * 2 - 1).unsqueeze(1)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(opt.nz, opt.ngf * 4, 4, 1, 0, bias=False),  # 4x4
            nn.BatchNorm2d(opt.ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(opt.ngf * 4, opt.ngf * 2, 4, 2, 1, bias=False),  # 8x8
            nn.BatchNorm2d(opt.ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(opt.ngf * 2, 1, 4, 2, 1, bias=False),  # 16x16
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(1, opt.ndf, 4, 2, 1, bias=False),  # 8x8
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(opt.ndf, opt.ndf * 2, 4, 2, 1, bias=False),  # 4x4
            nn.BatchNorm2d(opt.ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(opt.ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input)


netG = Generator().to(device)
netG.apply(weights_init)
netD = Discriminator().to(device)
netD.apply(weights_init)
print(netD)

criterion = nn.BCELoss()
fixed_noise = torch.randn(16, opt.nz, 1, 1, device=device)
optimizerD = optim.Adam(netD.parameters(), lr=opt.lr, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=opt.lr, betas=(0.5, 0.999))

data = make_images(96)
batch_size = 32
G_losses, D_losses = [], []
for i in range(opt.iters):
    start = (i * batch_size) % data.size(0)
    real_cpu = data[start:start + batch_size].to(device)
    b_size = real_cpu.size(0)
    # (1) maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    label = torch.full((b_size,), real_label, dtype=torch.float, device=device)
    output = netD(real_cpu).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()
    noise = torch.randn(b_size, opt.nz, 1, 1, device=device)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    # (2) maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    G_losses.append(errG.item())
    D_losses.append(errD.item())
    if i % 4 == 0:
        print("[%d/%d] Loss_D: %.4f Loss_G: %.4f D(x): %.4f D(G(z)): %.4f / %.4f"
              % (i, opt.iters, errD.item(), errG.item(), D_x, D_G_z1, D_G_z2))

with torch.no_grad():
    fake = netG(fixed_noise).detach().cpu()
print("fake batch", tuple(fake.shape), "range %.4f %.4f" % (fake.min().item(), fake.max().item()))
print("mean G loss %.4f, mean D loss %.4f" % (sum(G_losses) / len(G_losses), sum(D_losses) / len(D_losses)))
