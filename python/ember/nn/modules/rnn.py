"""Recurrent layers: RNN, LSTM, GRU and their single-step cells.

Parameter names, shapes, initialization and call conventions are torch's, so
state_dicts move between the two. The recurrences themselves run in C++
(ember.lstm / gru / rnn_tanh / rnn_relu and the *_cell ops)."""

import math
import numbers
import warnings

import ember

from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
_RECURRENCES = {"LSTM": "lstm", "GRU": "gru", "RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu"}


def _packed_sequence_class():
    from ..utils.rnn import PackedSequence

    return PackedSequence


def _apply_permutation(tensor, permutation, dim=1):
    return tensor.index_select(dim, permutation)


def _check_size(name, size):
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"{name} should be of type int, got: {type(size).__name__}")


class RNNBase(Module):
    r"""The shared machinery of RNN, LSTM and GRU (torch.nn.RNNBase)."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}")
        _check_size("hidden_size", hidden_size)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size

        factory = {"device": device, "dtype": dtype}
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [(f"weight_ih_l{layer}{suffix}", [gate_size, layer_input_size]),
                          (f"weight_hh_l{layer}{suffix}", [gate_size, real_hidden_size])]
                if bias:
                    shapes += [(f"bias_ih_l{layer}{suffix}", [gate_size]), (f"bias_hh_l{layer}{suffix}", [gate_size])]
                if proj_size > 0:
                    shapes.append((f"weight_hr_l{layer}{suffix}", [proj_size, hidden_size]))
                for name, shape in shapes:
                    setattr(self, name, Parameter(ember.empty(shape, **factory)))
                names = [name for name, _ in shapes]
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        # Read each time, so that replaced or converted parameters are seen.
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """Kept for torch scripts: parameters are never flattened into one buffer here."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    # ---- argument checks (torch's wording) ----------------------------------------------------

    def check_input(self, input, batch_sizes):
        if input.dtype != self._flat_weights[0].dtype:
            raise ValueError(f"input must have the type {self._flat_weights[0].dtype}, got type {input.dtype}")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * directions, mini_batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx, permutation)

    # ---- forward ----------------------------------------------------------------------------

    def _unpack_input(self, input, hx):
        """(input, batch_sizes, sorted_indices, unsorted_indices, is_batched, hx) with unbatched input made batched."""
        if isinstance(input, _packed_sequence_class()):
            input, batch_sizes, sorted_indices, unsorted_indices = input
            return input, batch_sizes, sorted_indices, unsorted_indices, True, hx
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D tensor "
                             "instead")
        is_batched = input.dim() == 3
        if not is_batched:
            input = input.unsqueeze(1 if not self.batch_first else 0)
            hx = self._batch_hidden(hx, 2, "unbatched 2-D", lambda h: h.unsqueeze(1))
        else:
            hx = self._batch_hidden(hx, 3, "batched 3-D", lambda h: h)
        return input, None, None, None, is_batched, hx

    @staticmethod
    def _batch_hidden(hx, dim, kind, change):
        if hx is None:
            return None
        tensors = hx if isinstance(hx, tuple) else (hx,)
        for h in tensors:
            if h.dim() != dim:
                what = "hx and cx" if isinstance(hx, tuple) else "hx"
                raise RuntimeError(f"For {kind} input, {what} should also be {dim}-D but got {h.dim()}-D tensor")
        changed = tuple(change(h) for h in tensors)
        return changed if isinstance(hx, tuple) else changed[0]

    def _zero_state(self, input, batch, size):
        directions = 2 if self.bidirectional else 1
        return ember.zeros([self.num_layers * directions, batch, size], dtype=input.dtype, device=input.device)

    def _run(self, input, batch_sizes, hx):
        recurrence = getattr(ember, _RECURRENCES[self.mode])
        weights = self._flat_weights
        if batch_sizes is None:
            return recurrence(input, hx, weights, self.bias, self.num_layers, self.dropout, self.training,
                              self.bidirectional, self.batch_first)
        return recurrence(input, batch_sizes, hx, weights, self.bias, self.num_layers, self.dropout, self.training,
                          self.bidirectional)

    def _finish(self, output, batch_sizes, sorted_indices, unsorted_indices, is_batched):
        if batch_sizes is not None:
            return _packed_sequence_class()(output, batch_sizes, sorted_indices, unsorted_indices)
        if not is_batched:
            return output.squeeze(1 if not self.batch_first else 0)
        return output

    def forward(self, input, hx=None):
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, hx = self._unpack_input(input, hx)
        if hx is None:
            batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
            hx = self._zero_state(input, batch, self.hidden_size)
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, hidden = self._run(input, batch_sizes, hx)
        output = self._finish(output, batch_sizes, sorted_indices, unsorted_indices, is_batched)
        if batch_sizes is None and not is_batched:
            hidden = hidden.squeeze(1)
        return output, self.permute_hidden(hidden, unsorted_indices)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__.setdefault("proj_size", 0)


class RNN(RNNBase):
    r"""An Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if self.nonlinearity not in modes:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[self.nonlinearity], *args, **kwargs)


class LSTM(RNNBase):
    r"""A multi-layer long short-term memory RNN; returns output, (h_n, c_n)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        directions = 2 if self.bidirectional else 1
        return (self.num_layers * directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return _apply_permutation(hx[0], permutation), _apply_permutation(hx[1], permutation)

    def forward(self, input, hx=None):
        if hx is not None and not (isinstance(hx, tuple) and len(hx) == 2):
            raise RuntimeError("LSTM: Expected hx to be a tuple of two tensors (h_0, c_0)")
        input, batch_sizes, sorted_indices, unsorted_indices, is_batched, hx = self._unpack_input(input, hx)
        if hx is None:
            batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
            real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            hx = (self._zero_state(input, batch, real_hidden_size), self._zero_state(input, batch, self.hidden_size))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
        self.check_forward_args(input, hx, batch_sizes)
        output, h_n, c_n = self._run(input, batch_sizes, list(hx))
        output = self._finish(output, batch_sizes, sorted_indices, unsorted_indices, is_batched)
        if batch_sizes is None and not is_batched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return output, self.permute_hidden((h_n, c_n), unsorted_indices)


class GRU(RNNBase):
    r"""A multi-layer gated recurrent unit RNN; returns output, h_n."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---- cells -----------------------------------------------------------------------------------


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        factory = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(ember.empty([num_chunks * hidden_size, input_size], **factory))
        self.weight_hh = Parameter(ember.empty([num_chunks * hidden_size, hidden_size], **factory))
        if bias:
            self.bias_ih = Parameter(ember.empty([num_chunks * hidden_size], **factory))
            self.bias_hh = Parameter(ember.empty([num_chunks * hidden_size], **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input, hx, count):
        """(input, hx as a tuple of `count` states, is_batched), zero states where hx is None."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        states = hx if isinstance(hx, tuple) else (hx,)
        for h in states:
            if h is not None and h.dim() not in (1, 2):
                raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got {h.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = ember.zeros([input.size(0), self.hidden_size], dtype=input.dtype, device=input.device)
            return input, (zeros,) * count, is_batched
        if not is_batched:
            states = tuple(h.unsqueeze(0) for h in states)
        return input, states, is_batched


class RNNCell(RNNCellBase):
    r"""One Elman RNN step: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (hx,), is_batched = self._batched(input, hx, 1)
        if self.nonlinearity == "tanh":
            ret = ember.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = ember.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    r"""One LSTM step; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, is_batched = self._batched(input, hx, 2)
        h, c = ember.lstm_cell(input, list(states), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    r"""One GRU step; returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (hx,), is_batched = self._batched(input, hx, 1)
        ret = ember.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
