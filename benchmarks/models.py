"""Whole-workload benchmark cases: the same model written once against the
shared API and built with either library (`lib` is ember or torch), so both
run identical architectures, shapes and optimizers.

Each builder returns a step function: a training step (forward, backward,
optimizer step) or, for inference, a forward under no_grad. Training
builders take `autocast`: the forward and loss then run under CPU bfloat16
autocast, as mixed-precision scripts do. The MLP and the char transformer
also take `lazy` (an executor name): Ember's model then trains on the lazy
device, each step ending with mark_step(), and `compile_every_step` empties
the compiled-graph cache before each step, which times a first step
(recording, compiling and running). torch, which has no lazy device here,
runs them eagerly.
"""

import functools


def classifier_step(lib, model, optimizer, x, y, autocast=False):
    """One training step of a classifier: cross-entropy, backward, optimizer step."""

    def step():
        optimizer.zero_grad()
        with lib.autocast("cpu", enabled=autocast):
            loss = lib.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()

    return step


def _lazy_device(lib, lazy):
    """The device Ember's model trains on: "lazy" when asked for, else the CPU."""
    return "lazy" if lazy and lib.__name__ == "ember" else "cpu"


def _on_lazy(lib, lazy, compile_every_step=False):
    """What ends a step: mark_step() on the lazy device (with `lazy` its executor)."""
    if _lazy_device(lib, lazy) == "cpu":
        return lambda: None
    lib.lazy.set_executor(lazy)

    def finish():
        if compile_every_step:
            lib._C._lazy.clear_compiled()
        lib.lazy.mark_step()

    return finish


def mlp_step(lib, autocast=False, lazy=None, compile_every_step=False):
    """examples/mlp.py's 2-64-64-2 ReLU network with Adam, on a batch of 512 points."""
    nn = lib.nn
    device = _lazy_device(lib, lazy)
    lib.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2)).to(device)
    optimizer = lib.optim.Adam(model.parameters(), lr=1e-2)
    x, y = lib.randn(512, 2).to(device), lib.randint(0, 2, (512,)).to(device)
    step = classifier_step(lib, model, optimizer, x, y, autocast)
    finish = _on_lazy(lib, lazy, compile_every_step)

    def lazy_step():
        step()
        finish()

    return lazy_step


def shapes_cnn_step(lib, autocast=False):
    """examples/cnn.py's two conv-bn-relu-pool blocks on 16x16 images, batch 64, with Adam."""
    nn, F = lib.nn, lib.nn.functional

    class ShapeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8)
            self.conv2, self.bn2 = nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16)
            self.dropout = nn.Dropout(0.1)
            self.head = nn.Linear(16 * 4 * 4, 4)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
            return self.head(self.dropout(x.flatten(1)))

    lib.manual_seed(0)
    model = ShapeNet()
    optimizer = lib.optim.Adam(model.parameters(), lr=3e-3)
    x, y = lib.randn(64, 1, 16, 16), lib.randint(0, 4, (64,))
    return classifier_step(lib, model, optimizer, x, y, autocast)


def char_transformer(lib, vocab=65, context=64, dim=64):
    """The demo's model (examples/char_transformer.py): 2 pre-norm blocks of causal
    attention and a GELU MLP (dim 64, context 64), in either library."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.attn = nn.MultiheadAttention(dim, 4, dropout=0.1, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(0.1))

        def forward(self, x, mask):
            h = self.norm1(x)
            x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
            return x + self.mlp(self.norm2(x))

    class CharTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.token, self.position = nn.Embedding(vocab, dim), nn.Embedding(context, dim)
            self.dropout = nn.Dropout(0.1)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.norm, self.head = nn.LayerNorm(dim), nn.Linear(dim, vocab)
            self.register_buffer("mask", lib.ones(context, context, dtype=lib.bool).triu(1), persistent=False)

        def forward(self, tokens):
            x = self.dropout(self.token(tokens) + self.position(lib.arange(tokens.shape[1], device=tokens.device)))
            for block in self.blocks:
                x = block(x, self.mask)
            return self.head(self.norm(x))

    return CharTransformer()


def char_transformer_step(lib, autocast=False, lazy=None, compile_every_step=False):
    """A training step of the char transformer, batch 32, AdamW and clipping."""
    nn, F = lib.nn, lib.nn.functional
    vocab, context = 65, 64

    device = _lazy_device(lib, lazy)
    lib.manual_seed(0)
    model = char_transformer(lib, vocab, context).to(device)
    optimizer = lib.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.1)
    tokens, targets = lib.randint(0, vocab, (32, context)), lib.randint(0, vocab, (32, context))
    tokens, targets = tokens.to(device), targets.to(device)
    finish = _on_lazy(lib, lazy, compile_every_step)

    def step():
        optimizer.zero_grad()
        with lib.autocast("cpu", enabled=autocast):
            loss = F.cross_entropy(model(tokens).reshape(-1, vocab), targets.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        finish()

    return step


def conv_blocks_step(lib, autocast=False):
    """4 conv-bn-relu blocks (32-64-128-256 channels, stride 2 after the first)
    on 32x32 images at batch 64, a linear head, SGD with momentum."""
    nn = lib.nn
    layers, channels = [], 3
    for i, width in enumerate((32, 64, 128, 256)):
        layers += [nn.Conv2d(channels, width, 3, stride=1 if i == 0 else 2, padding=1, bias=False),
                   nn.BatchNorm2d(width), nn.ReLU(inplace=True)]
        channels = width
    lib.manual_seed(0)
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, 10))
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = lib.randn(64, 3, 32, 32), lib.randint(0, 10, (64,))
    return classifier_step(lib, model, optimizer, x, y, autocast)


def resnet18_inference(lib):
    """ResNet-18 (basic blocks 2-2-2-2, 64-512 channels) on 8 images of 224x224, eval mode, no_grad."""
    nn = lib.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.down is None else self.down(x)
            out = self.relu(self.bn1(self.conv1(x)))
            return self.relu(self.bn2(self.conv2(out)) + identity)

    blocks, cin = [], 64
    for i, cout in enumerate((64, 128, 256, 512)):
        blocks += [BasicBlock(cin, cout, 1 if i == 0 else 2), BasicBlock(cout, cout, 1)]
        cin = cout
    lib.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
                          nn.ReLU(inplace=True), nn.MaxPool2d(3, stride=2, padding=1), *blocks,
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)).eval()
    x = lib.randn(8, 3, 224, 224)

    def step():
        with lib.no_grad():
            model(x)

    return step


# (name, builder): the whole-model rows, first in the table.
WORKLOADS = [
    ("model: MLP 2-64-64-2, batch 512, Adam step", mlp_step),
    ("model: shapes CNN 16x16, batch 64, Adam step", shapes_cnn_step),
    ("model: char transformer, batch 32x64, AdamW step", char_transformer_step),
    ("model: 4 conv-bn-relu blocks 32x32, batch 64, SGD step", conv_blocks_step),
    ("model: ResNet-18 inference, batch 8 224x224, no_grad", resnet18_inference),
    ("model: MLP, bf16 autocast", functools.partial(mlp_step, autocast=True)),
    ("model: shapes CNN, bf16 autocast", functools.partial(shapes_cnn_step, autocast=True)),
    ("model: char transformer, bf16 autocast", functools.partial(char_transformer_step, autocast=True)),
    ("model: 4 conv-bn-relu blocks, bf16 autocast", functools.partial(conv_blocks_step, autocast=True)),
    # Ember on the lazy device against torch eager: steady steps, then first steps (compiling each time).
    ("model: MLP, lazy (builtin)", functools.partial(mlp_step, lazy="builtin")),
    ("model: MLP, lazy (xla)", functools.partial(mlp_step, lazy="xla")),
    ("model: MLP, lazy (xla), first step", functools.partial(mlp_step, lazy="xla", compile_every_step=True)),
    ("model: char transformer, lazy (builtin)", functools.partial(char_transformer_step, lazy="builtin")),
    ("model: char transformer, lazy (xla)", functools.partial(char_transformer_step, lazy="xla")),
    ("model: char transformer, lazy (xla), first step",
     functools.partial(char_transformer_step, lazy="xla", compile_every_step=True)),
]
