"""A small residual network trained the way CIFAR-style training scripts do
it: BasicBlocks with a 1x1 downsample shortcut, kaiming_normal_(fan_out)
init and zero-initialized last BatchNorm of each block, channels_last
memory format, SGD with Nesterov momentum and weight decay, warmup then
CosineAnnealingLR through SequentialLR, label smoothing, an EMA of the
weights with swa_utils.AveragedModel (BatchNorm statistics refreshed by
update_bn), torch.compile (disabled), and a state_dict round trip.
"""
import io

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from ember.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn, update_bn
from ember.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = BasicBlock(8, 8)
        self.layer2 = BasicBlock(8, 16, stride=2)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
        for m in self.modules():
            if isinstance(m, BasicBlock):
                nn.init.constant_(m.bn2.weight, 0)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.pool(x), 1))


def make_images(n):
    """Four classes: which quadrant of a 8x8 RGB image is bright."""
    labels = torch.arange(n) % 4
    images = torch.randn(n, 3, 8, 8) * 0.5
    for i in range(n):
        r, c = divmod(int(labels[i]), 2)
        images[i, :, 4 * r:4 * r + 4, 4 * c:4 * c + 4] += 1.5
    return images, labels


images, labels = make_images(64)
loader = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True)
model = ResNet().to(memory_format=torch.channels_last)
model = torch.compile(model, disable=True)  # (compiling costs seconds in torch; the call is what is tested)
ema = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=5e-4)
epochs = 4
warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=len(loader))
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=(epochs - 1) * len(loader))
scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine], milestones=[len(loader)])
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
for epoch in range(epochs):
    model.train()
    total = 0.0
    for x, y in loader:
        x = x.to(memory_format=torch.channels_last)
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        ema.update_parameters(model)
        scheduler.step()
        total += loss.item()
    print(f"epoch {epoch}: loss {total / len(loader):.4f} lr {scheduler.get_last_lr()[0]:.5f}")

update_bn(loader, ema)
ema.eval()
with torch.no_grad():
    accuracy = (ema(images).argmax(1) == labels).float().mean().item()
print(f"EMA accuracy {accuracy:.4f}, EMA fc weight sum {ema.module.fc.weight.sum().item():.4f}")
buffer = io.BytesIO()
torch.save(getattr(model, "_orig_mod", model).state_dict(), buffer)  # compile may wrap it
buffer.seek(0)
restored = ResNet()
restored.load_state_dict(torch.load(buffer))
restored.eval()
model.eval()
with torch.no_grad():
    print("restored matches:", torch.allclose(restored(images), model(images), atol=1e-6))
