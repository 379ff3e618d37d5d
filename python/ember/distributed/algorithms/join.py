"""Join: training with uneven inputs across ranks (torch.distributed.algorithms.join's interface).

Inside ``with Join([ddp_model]):`` a rank whose inputs run out waits at the end of the block while the
others go on: every iteration, each rank still training all-reduces a one (its forward does, through
``Join.notify_join_context``), and each rank that has joined all-reduces a zero and then shadows what
the iteration's collectives are (each Joinable's ``JoinHook.main_hook``), so that the others never wait
on it. When the count reaches zero every rank runs its ``post_hook``, told whether it joined last.
With ``throw_on_early_termination=True`` the first rank to run out makes every rank raise instead.
"""

import abc
from typing import NamedTuple

import ember
import ember.distributed as dist

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a Joinable does while joined (main_hook, once per iteration the others run) and once all
    ranks have joined (post_hook)."""

    def main_hook(self):
        pass

    def post_hook(self, is_last_joiner):
        pass


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(abc.ABC):
    """A class whose per-iteration collectives a joined rank can shadow."""

    @abc.abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abc.abstractmethod
    def join_hook(self, **kwargs):
        """The JoinHook that shadows this object's collectives."""

    @property
    @abc.abstractmethod
    def join_device(self):
        """Where the join context's counting tensors live."""

    @property
    @abc.abstractmethod
    def join_process_group(self):
        """The process group the collectives run on."""


class Join:
    def __init__(self, joinables, enable=True, throw_on_early_termination=False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = list(joinables)
        self._join_hooks = [joinable.join_hook(**kwargs) for joinable in self._joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._set_joinable_configs()
        groups = {id(joinable.join_process_group) for joinable in self._joinables}
        if len(groups) > 1:
            raise ValueError("Using join context manager with multiple process groups")
        self._process_group = self._joinables[0].join_process_group
        self._rank = dist.get_rank(self._process_group)

    def _set_joinable_configs(self):
        for i, joinable in enumerate(self._joinables):
            joinable._join_config = _JoinConfig(self._enable, self._throw_on_early_termination, i == 0)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        try:
            if not self._enable or kind is not None:
                return None  # an exception propagates; the others find out through their timeout
            is_last_joiner = True
            while self._count_nonjoined() > 0:
                if self._throw_on_early_termination:
                    self._notify_procs_to_terminate()
                for hook in self._join_hooks:
                    hook.main_hook()
                is_last_joiner = False
            for hook in self._join_hooks:
                hook.post_hook(is_last_joiner)
            return None
        finally:
            for joinable in self._joinables:
                joinable._join_config = _JoinConfig.construct_disabled_join_config()

    def _count_nonjoined(self):
        count = ember.zeros(1, dtype=ember.int64)
        dist.all_reduce(count, group=self._process_group)
        return int(count.item())

    def _notify_procs_to_terminate(self):
        ones = ember.ones(1, dtype=ember.int64)
        dist.all_reduce(ones, group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable):
        """Called by a joinable at the start of each iteration: counts this rank as still training (the
        all-reduce the joined ranks answer with a zero). Returns the async Work, or None outside a Join."""
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        group = joinable.join_process_group
        work = dist.all_reduce(ember.ones(1, dtype=ember.int64), group=group, async_op=True)
        if config.throw_on_early_termination:
            terminated = ember.zeros(1, dtype=ember.int64)
            dist.all_reduce(terminated, group=group)
            if terminated.item() > 0:
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
