"""A graph convolutional network written the way message-passing code does
it without a graph library: an edge list as a (2, E) LongTensor, symmetric
degree normalization built with index_add_, neighbour features gathered by
indexing and summed into their targets with index_add_, two GCN layers with
dropout between them, node classification on a training mask with Adam and
weight decay, accuracy on held-out nodes.

DROPOUT is 0 so that the run can be compared number for number with torch's:
the two libraries draw dropout masks from different random streams.
"""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

torch.manual_seed(3)
DROPOUT = 0.0


def make_graph(nodes_per_class, classes, generator):
    """Communities that are densely linked inside and sparsely between, with class-dependent features."""
    n = nodes_per_class * classes
    labels = torch.arange(classes).repeat_interleave(nodes_per_class)
    features = torch.randn(n, 8, generator=generator) + F.one_hot(labels, 8).float() * 1.5
    src_in = torch.randint(0, nodes_per_class, (n * 3,), generator=generator)
    dst_in = torch.randint(0, nodes_per_class, (n * 3,), generator=generator)
    block = torch.randint(0, classes, (n * 3,), generator=generator) * nodes_per_class
    src_out = torch.randint(0, n, (n // 2,), generator=generator)
    dst_out = torch.randint(0, n, (n // 2,), generator=generator)
    src = torch.cat([src_in + block, src_out])
    dst = torch.cat([dst_in + block, dst_out])
    loops = torch.arange(n)
    edge_index = torch.stack([torch.cat([src, dst, loops]), torch.cat([dst, src, loops])])  # undirected + self loops
    return features, labels, edge_index


class GCNLayer(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_features))

    def forward(self, x, edge_index, norm):
        x = self.linear(x)
        row, col = edge_index
        messages = x[col] * norm.unsqueeze(-1)
        out = torch.zeros_like(x).index_add_(0, row, messages)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, in_features, hidden, classes):
        super().__init__()
        self.conv1 = GCNLayer(in_features, hidden)
        self.conv2 = GCNLayer(hidden, classes)

    def forward(self, x, edge_index, norm):
        x = F.relu(self.conv1(x, edge_index, norm))
        x = F.dropout(x, p=DROPOUT, training=self.training)
        return self.conv2(x, edge_index, norm)


def normalization(edge_index, n):
    row, col = edge_index
    degree = torch.zeros(n).index_add_(0, row, torch.ones(row.numel()))
    inv_sqrt = degree.pow(-0.5)
    inv_sqrt[torch.isinf(inv_sqrt)] = 0.0
    return inv_sqrt[row] * inv_sqrt[col]


def main():
    generator = torch.Generator().manual_seed(11)
    x, y, edge_index = make_graph(30, 3, generator)
    n = x.size(0)
    norm = normalization(edge_index, n)
    order = torch.randperm(n, generator=generator)
    train_mask = torch.zeros(n, dtype=torch.bool)
    train_mask[order[:30]] = True
    test_mask = ~train_mask
    print(f"{n} nodes, {edge_index.size(1)} directed edges, {int(train_mask.sum())} labelled")

    model = GCN(8, 16, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.02, weight_decay=5e-4)
    for epoch in range(1, 61):
        model.train()
        optimizer.zero_grad()
        out = model(x, edge_index, norm)
        loss = F.cross_entropy(out[train_mask], y[train_mask])
        loss.backward()
        optimizer.step()
        if epoch % 20 == 0:
            model.eval()
            with torch.no_grad():
                pred = model(x, edge_index, norm).argmax(dim=1)
            accuracy = (pred[test_mask] == y[test_mask]).float().mean().item()
            print(f"epoch {epoch}: loss {loss.item():.4f}, test accuracy {accuracy:.4f}")
    assert accuracy > 0.6, "the model learned nothing"


if __name__ == "__main__":
    main()
