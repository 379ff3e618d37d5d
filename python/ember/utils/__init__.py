from . import checkpoint, data, dlpack  # noqa: F401
from ._paths import cmake_prefix_path  # noqa: F401
