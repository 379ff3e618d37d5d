from . import checkpoint, data, dlpack, model_zoo  # noqa: F401
from ._paths import cmake_prefix_path  # noqa: F401
