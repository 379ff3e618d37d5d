from .._C import from_dlpack, to_dlpack  # noqa: F401
