"""A graph network over a sparse adjacency matrix, the way GCN reference code
does it: the normalized adjacency D^-1/2 (A + I) D^-1/2 is built once as a
sparse COO tensor from an edge list, each layer propagates with
torch.sparse.mm, and a learned node embedding (nn.Embedding with sparse
gradients, trained by SparseAdam) is added to the input features while the
dense weights train with Adam. Node classification with a held-out split.
"""

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

torch.manual_seed(5)


def make_graph(nodes_per_class, classes, generator):
    """Densely linked communities with a few links between them and class-dependent features."""
    n = nodes_per_class * classes
    labels = torch.arange(classes).repeat_interleave(nodes_per_class)
    features = torch.randn(n, 6, generator=generator) + F.one_hot(labels, 6).float()
    block = torch.randint(0, classes, (n * 2,), generator=generator) * nodes_per_class
    src = torch.randint(0, nodes_per_class, (n * 2,), generator=generator) + block
    dst = torch.randint(0, nodes_per_class, (n * 2,), generator=generator) + block
    noise_src = torch.randint(0, n, (n // 3,), generator=generator)
    noise_dst = torch.randint(0, n, (n // 3,), generator=generator)
    src, dst = torch.cat([src, noise_src]), torch.cat([dst, noise_dst])
    return features, labels, torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])


def normalized_adjacency(edge_index, n):
    """D^-1/2 (A + I) D^-1/2 as a coalesced sparse matrix (duplicate edges add up)."""
    loops = torch.arange(n)
    index = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
    adjacency = torch.sparse_coo_tensor(index, torch.ones(index.size(1)), (n, n)).coalesce()
    degree = torch.sparse.sum(adjacency, dim=1).to_dense()
    inv_sqrt = degree.pow(-0.5)
    row, col = adjacency.indices()
    values = inv_sqrt[row] * adjacency.values() * inv_sqrt[col]
    return torch.sparse_coo_tensor(adjacency.indices(), values, (n, n)).coalesce()


class GraphConv(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x, adjacency):
        return torch.sparse.mm(adjacency, self.linear(x))


class GCN(nn.Module):
    def __init__(self, n, in_features, hidden, classes):
        super().__init__()
        self.node_embedding = nn.Embedding(n, in_features, sparse=True)
        nn.init.normal_(self.node_embedding.weight, std=0.1)
        self.conv1 = GraphConv(in_features, hidden)
        self.conv2 = GraphConv(hidden, classes)

    def forward(self, x, adjacency):
        x = x + self.node_embedding(torch.arange(x.size(0)))
        return self.conv2(F.relu(self.conv1(x, adjacency)), adjacency)


def main():
    generator = torch.Generator().manual_seed(7)
    x, y, edge_index = make_graph(25, 3, generator)
    n = x.size(0)
    adjacency = normalized_adjacency(edge_index, n)
    print(f"{n} nodes, {adjacency._nnz()} stored entries, layout {adjacency.layout}")
    order = torch.randperm(n, generator=generator)
    train, test = order[:24], order[24:]

    model = GCN(n, 6, 16, 3)
    dense = [p for name, p in model.named_parameters() if not name.startswith("node_embedding")]
    optimizers = [torch.optim.Adam(dense, lr=0.02), torch.optim.SparseAdam([model.node_embedding.weight], lr=0.01)]
    for epoch in range(1, 51):
        for optimizer in optimizers:
            optimizer.zero_grad()
        out = model(x, adjacency)
        loss = F.cross_entropy(out[train], y[train])
        loss.backward()
        assert model.node_embedding.weight.grad.is_sparse
        for optimizer in optimizers:
            optimizer.step()
        if epoch % 10 == 0:
            with torch.no_grad():
                pred = model(x, adjacency).argmax(dim=1)
            accuracy = (pred[test] == y[test]).float().mean().item()
            print(f"epoch {epoch}: loss {loss.item():.4f}, test accuracy {accuracy:.4f}")
    assert accuracy > 0.6, "the model learned nothing"


if __name__ == "__main__":
    main()
