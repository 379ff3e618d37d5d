"""Nested containers of values ("pytrees") flattened to a list of leaves and
rebuilt from one, as torch.utils._pytree: tuples, lists, dicts (keys kept in
order), OrderedDicts and namedtuples are nodes; everything else is a leaf."""

from collections import OrderedDict

__all__ = ["TreeSpec", "LeafSpec", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves", "tree_structure"]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(node):
    """(kind, context, children) of a container node; None for a leaf."""
    if _is_namedtuple(node):
        return type(node), None, list(node)
    if isinstance(node, (tuple, list)):
        return type(node), None, list(node)
    if isinstance(node, (dict, OrderedDict)):
        keys = list(node)
        return type(node), keys, [node[k] for k in keys]
    return None


def _rebuild(kind, context, children):
    if kind is None:
        return children[0]
    if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):
        return kind(*children)
    if kind in (tuple, list):
        return kind(children)
    return kind(zip(context, children))


class TreeSpec:
    """The shape of a pytree without its leaves."""

    def __init__(self, kind, context, children_specs):
        self.type = kind
        self.context = context
        self.children_specs = children_specs
        self.num_leaves = 1 if kind is None else sum(c.num_leaves for c in children_specs)

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return (isinstance(other, TreeSpec) and self.type == other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    def __repr__(self):
        if self.type is None:
            return "*"
        inner = ", ".join(repr(c) for c in self.children_specs)
        return f"TreeSpec({self.type.__name__}, {self.context}, [{inner}])"


def LeafSpec():  # noqa: N802 (torch's name)
    return TreeSpec(None, None, [])


def tree_flatten(tree):
    """(leaves in order, TreeSpec)."""
    parts = _children(tree)
    if parts is None:
        return [tree], LeafSpec()
    kind, context, children = parts
    leaves, specs = [], []
    for child in children:
        child_leaves, child_spec = tree_flatten(child)
        leaves += child_leaves
        specs.append(child_spec)
    return leaves, TreeSpec(kind, context, specs)


def tree_unflatten(leaves, spec):
    leaves = list(leaves)
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"tree_unflatten(leaves, treespec): `leaves` has length {len(leaves)} but the spec refers "
                         f"to a pytree that holds {spec.num_leaves} items ({spec}).")

    def build(s, it):
        if s.is_leaf():
            return next(it)
        return _rebuild(s.type, s.context, [build(c, it) for c in s.children_specs])

    return build(spec, iter(leaves))


def tree_leaves(tree):
    return tree_flatten(tree)[0]


def tree_structure(tree):
    return tree_flatten(tree)[1]


def tree_map(fn, tree, *rests):
    """fn applied to every leaf (with the matching leaves of `rests`, which have the same structure)."""
    leaves, spec = tree_flatten(tree)
    others = []
    for rest in rests:
        rest_leaves, rest_spec = tree_flatten(rest)
        if rest_spec != spec:
            raise ValueError(f"tree_map: the trees have different structures: {spec} and {rest_spec}")
        others.append(rest_leaves)
    return tree_unflatten([fn(*xs) for xs in zip(leaves, *others)], spec)
