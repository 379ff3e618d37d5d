"""GradScaler: loss scaling for mixed-precision training, with torch's
arguments, checks, state_dict and update rule."""

import warnings
from collections import defaultdict
from enum import Enum

import ember


class OptState(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not ember.cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made on first use, on the outputs' device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self, device):
        self._scale = ember.full((), self._init_scale, dtype=ember.float32, device=device)
        self._growth_tracker = ember.full((), self._init_growth_tracker, dtype=ember.int32, device=device)

    def scale(self, outputs):
        """Multiplies the outputs (a tensor, or tensors in lists and tuples) by the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, ember.Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)

        def apply(value):
            if isinstance(value, ember.Tensor):
                return self.scale(value)
            if isinstance(value, (list, tuple)):
                scaled = [apply(v) for v in value]
                return type(value)(scaled) if isinstance(value, list) else tuple(scaled)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")
        return apply(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Unscales the gradients with one fused pass per gradient, grouped by
        device (one found_inf each), as torch does."""
        per_device = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == ember.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                per_device.setdefault(param.grad.device, []).append(param.grad)
        found = {}
        with ember.no_grad():
            for device, grads in per_device.items():
                found[device] = found_inf if device == found_inf.device else ember.zeros_like(found_inf, device=device)
                ember._amp_foreach_non_finite_check_and_unscale_(grads, found[device], inv_scale.to(device))
        return found or {found_inf.device: found_inf}

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale (once per step), noting any inf or NaN."""
        if not self._enabled:
            return
        self._check_scale_initialized("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = ember.full((), 0.0, dtype=ember.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step() unless the unscaled gradients hold an inf or NaN; returns what it returned."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_initialized("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise RuntimeError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale=None):
        """Backs the scale off after an overflow, or grows it after growth_interval clean steps."""
        if not self._enabled:
            return
        self._check_scale_initialized("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                if not (isinstance(new_scale, ember.Tensor) and new_scale.numel() == 1
                        and not new_scale.requires_grad):
                    raise ValueError("new_scale should be a float or a 1-element tensor with requires_grad=False.")
                self._scale.copy_(new_scale.reshape(()))
        else:
            found = [inf for state in self._per_optimizer_states.values()
                     for inf in state["found_inf_per_device"].values()]
            if not found:
                raise RuntimeError("No inf checks were recorded prior to update.")
            found_inf = found[0]
            for other in found[1:]:
                found_inf = found_inf + other.to(found_inf.device)
            ember._amp_update_scale_(self._scale, self._growth_tracker, found_inf, self._growth_factor,
                                     self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_fresh_optimizer_state)

    def _check_scale_initialized(self, name):
        if self._scale is None:
            raise RuntimeError(f"Attempted {name} but _scale is None.  This may indicate your script did not use "
                               f"scaler.scale(loss or outputs) earlier in the iteration.")

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
