from . import checkpoint, data, dlpack, model_zoo  # noqa: F401
from ._paths import cmake_prefix_path  # noqa: F401
from .backend_registration import generate_methods_for_privateuse1_backend, rename_privateuse1_backend  # noqa: F401
