"""out= for functions written in Python: the result copied into the caller's
tensor (resized to fit), or into each tensor of a tuple of them."""


def write(result, out):
    """result when out is None, else out (a tensor or a tuple of them) holding it."""
    if out is None:
        return result
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            o.resize_(r.shape)
            o.copy_(r)
        return type(result)(*out) if hasattr(result, "_fields") else tuple(out)
    out.resize_(result.shape)
    return out.copy_(result)
