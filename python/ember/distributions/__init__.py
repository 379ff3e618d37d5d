"""Probability distributions with sampling, log-densities and KL divergences,
in the style of torch.distributions: parameters broadcast against each
other, ``rsample`` is reparameterized (gradients flow to the parameters) and
arguments are validated unless ``validate_args=False``.
"""

from . import constraints
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .exponential import Exponential
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Exponential", "Independent", "Laplace", "Normal",
           "OneHotCategorical", "Uniform", "constraints", "kl_divergence", "register_kl"]
