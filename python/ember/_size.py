import builtins


class Size(tuple):
    """The shape of a tensor: a tuple of ints that prints as ``ember.Size([2, 3])``."""

    def __new__(cls, sizes=()):
        values = tuple(sizes)
        for v in values:
            if builtins.isinstance(v, builtins.bool) or not hasattr(v, "__index__"):
                raise TypeError(f"ember.Size() takes an iterable of 'int' (item is of type '{type(v).__name__}')")
        return super().__new__(cls, (v.__index__() for v in values))

    def __repr__(self):
        return f"ember.Size([{', '.join(builtins.str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        result = super().__getitem__(key)
        return Size(result) if builtins.isinstance(key, slice) else result

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __reduce__(self):
        return (Size, (tuple(self),))
