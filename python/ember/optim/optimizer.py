"""The Optimizer base class, mirroring ``torch.optim.Optimizer``.

Parameters are plain leaf tensors with ``requires_grad=True``. Optimizers
keep per-parameter state in ``self.state`` (keyed by the tensor object) and
update parameters in place under ``ember.no_grad()``.
"""

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain

import ember

# One RemovableHandle for module and optimizer hooks, as torch (torch.utils.hooks).
from ..nn.modules.module import RemovableHandle, _clear_grad, _register_hook  # noqa: F401

__all__ = [
    "Optimizer",
    "register_optimizer_step_pre_hook",
    "register_optimizer_step_post_hook",
    "required",
]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Register a pre hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None or (args, kwargs)``."""
    return _register_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """Register a post hook common to all optimizers: ``hook(optimizer, args, kwargs) -> None``."""
    return _register_hook(_global_optimizer_post_hooks, hook)


def _typename(obj):
    """``torch.typename``: ``ember.FloatTensor`` for tensors, the qualified type name otherwise."""
    if isinstance(obj, ember.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    if module in {"", "builtins"}:
        return qualname
    return f"{module}.{qualname}"


def _get_value(x):
    return x.item() if isinstance(x, ember.Tensor) else x


def _to_scalar(x):
    """A 1-element tensor hyperparameter becomes 0-d; anything else is kept as is."""
    if isinstance(x, ember.Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype():
    return ember.float64 if ember.get_default_dtype() == ember.float64 else ember.float32


def _use_grad_for_differentiable(func):
    """Run ``step`` with grad mode set to ``defaults['differentiable']`` (off normally)."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        with ember.set_grad_enabled(self.defaults.get("differentiable", False)):
            return func(self, *args, **kwargs)

    return _use_grad


def _evaluate_closure(closure):
    """The loss from ``step``'s optional closure, or None.

    The closure re-runs the model and backward, so it needs grad mode on, while
    ``step`` itself runs with it off (see _use_grad_for_differentiable).
    """
    if closure is None:
        return None
    with ember.enable_grad():
        return closure()


def _params_with_grad(group):
    """The params of a group that ``step`` updates: those with a grad (the others are skipped, state and all)."""
    return [p for p in group["params"] if p.grad is not None]


def _check_hyperparameters(lr=None, eps=None, betas=None, weight_decay=None, **others):
    """torch's range checks: lr, eps, weight_decay and ``others`` (name: value) at least 0, betas in [0, 1)."""
    if isinstance(lr, ember.Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if lr is not None and not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if betas is not None:
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
    if weight_decay is not None and not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    for name, value in others.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {name} value: {value}")


def _lazy_states(optimizer, group, make_state):
    """The group's params with a grad, and their states: a new one is a
    0-d float 'step' plus what make_state(param) returns (created on first use)."""
    params = _params_with_grad(group)
    states = []
    for p in params:
        state = optimizer.state[p]
        if len(state) == 0:
            state["step"] = ember.tensor(0.0, dtype=_get_scalar_dtype())
            state.update(make_state(p))
        states.append(state)
    return params, states


def _check_fused(defaults):
    """The ``fused`` flag's conflicts (fused itself is accepted for torch compatibility and runs unfused)."""
    if defaults["fused"]:
        if defaults["differentiable"]:
            raise RuntimeError("`fused` does not support `differentiable`")
        if defaults["foreach"]:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of :class:`ember.Tensor` s or
            :class:`dict` s. Specifies what Tensors should be optimized.
        defaults: (dict): a dict containing default values of optimization
            options (used when a parameter group doesn't specify them).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()

        self._patch_step_function()

        if isinstance(params, ember.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be "
                "an iterable of Tensors or dicts, but got " + _typename(params)
            )

        self.state = defaultdict(dict)
        self.param_groups = []

        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]

        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {
            "defaults": self.defaults,
            "state": self.state,
            "param_groups": self.param_groups,
        }

    def _set_group_defaults(self, **options):
        """For subclasses' __setstate__: options that groups saved by older versions lack."""
        for group in self.param_groups:
            for name, default in options.items():
                group.setdefault(name, default)

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in (
            "_optimizer_step_pre_hooks",
            "_optimizer_step_post_hooks",
            "_optimizer_state_dict_pre_hooks",
            "_optimizer_state_dict_post_hooks",
            "_optimizer_load_state_dict_pre_hooks",
            "_optimizer_load_state_dict_post_hooks",
        ):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # ---- step hooks ------------------------------------------------------------

    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                        )
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _optimizer_step_code(self):
        """Entry point for profilers; does nothing."""

    def _patch_step_function(self):
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None or (new_args, new_kwargs)``, run before each step."""
        return _register_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None``, run after each step."""
        return _register_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state dict --------------------------------------------------------------

    def state_dict(self):
        r"""Return the state of the optimizer as a :class:`dict`.

        ``state`` maps integer parameter ids (the parameter's position across
        all groups, in order) to that parameter's state dict; ``param_groups``
        holds each group's options with ``params`` as a list of those ids.
        Tensors in ``state`` are the optimizer's own (not copies), as in torch.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)

        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {id(p): i for i, p in enumerate(group["params"], start_index) if id(p) not in param_mappings}
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, ember.Tensor) else k): v for k, v in self.state.items()
        }

        state_dict = {
            "state": packed_state,
            "param_groups": param_groups,
        }

        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        # 'step' keeps its dtype; other floating state follows the parameter's
        # dtype. Unlike torch (whose .to() may alias the loaded tensor), the
        # result is always a fresh copy, so the loaded state dict and this
        # optimizer never share storage.
        if key != "step" and param.is_floating_point() and value.dtype != param.dtype:
            out = value.to(dtype=param.dtype)
        else:
            out = value
        if out is value:
            out = value.detach().clone()
        return out

    def load_state_dict(self, state_dict):
        r"""Load the optimizer state (an object returned by :meth:`state_dict`).

        Tensors are copied (cast to the parameter's dtype, except ``step``).
        """
        state_dict = state_dict.copy()

        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result

        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])

        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group"
            )

        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, ember.Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            elif isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k) for k, v in value.items()}
            elif isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(_cast(param, v, param_id=param_id, param_groups=param_groups) for v in value)
            else:
                return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---- gradients / step ----------------------------------------------------------

    def zero_grad(self, set_to_none=True):
        r"""Reset the gradients of all optimized tensors (to ``None`` by default, else to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                _clear_grad(p, set_to_none)

    def step(self, closure=None):
        r"""Perform a single optimization step (overridden by every optimizer)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        r"""Add a param group to the optimizer's ``param_groups``."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")

        params = param_group["params"]
        if isinstance(params, ember.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        extracted_param_tensors = []
        extracted_param_names = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                extracted_param_names.append(param[0])
                extracted_param_tensors.append(param[1])
            else:
                extracted_param_tensors.append(param)

        param_group["params"] = extracted_param_tensors
        if len(extracted_param_names) != 0:
            if len(extracted_param_names) == len(extracted_param_tensors):
                param_group["param_names"] = extracted_param_names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")

        for param in param_group["params"]:
            if not isinstance(param, ember.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            else:
                param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; "
                "in future, this will cause an error; "
                "see github.com/pytorch/pytorch/issues/40967 for more information",
                stacklevel=3,
            )

        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {current_group_txt} to the optimizer"
                )

        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)


class _PerParameterOptimizer(Optimizer):
    """An optimizer whose step updates each parameter from a state of its
    own. A subclass gives the state a parameter starts with (_new_state),
    its functional form (_functional, called with the group's options) and
    the flags that pickles from older versions may lack (_flag_defaults)."""

    _flag_defaults = {"foreach": None, "maximize": False, "differentiable": False}

    def __setstate__(self, state):
        super().__setstate__(state)
        self._set_group_defaults(**self._flag_defaults)

    def _new_state(self, param, group):
        return {}

    # The functional form (e.g. rmsprop) that updates one group.
    _functional = None

    def _update(self, params, grads, states, group):
        type(self)._functional(params, grads, states, **_options(group))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step (``closure`` re-evaluates the model and returns the loss)."""
        loss = _evaluate_closure(closure)
        for group in self.param_groups:
            params, states = _lazy_states(self, group, lambda p, group=group: self._new_state(p, group))
            self._update(params, [p.grad for p in params], states, group)
        return loss


def _options(group):
    """A group's hyperparameters as keywords for a functional update (betas split in two)."""
    options = {k: v for k, v in group.items() if k != "params"}
    if "betas" in options:
        options["beta1"], options["beta2"] = options.pop("betas")
    return options
