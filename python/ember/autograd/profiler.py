"""ember.autograd.profiler: the older spelling of ember.profiler
(``with ember.autograd.profiler.profile() as prof``, ``record_function``)."""

from ..profiler import EventList, record_function  # noqa: F401
from ..profiler import profile as _profile


class profile(_profile):
    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        super().__init__(enabled=enabled)

    def table(self, **kwargs):
        return self.key_averages().table(**kwargs)
