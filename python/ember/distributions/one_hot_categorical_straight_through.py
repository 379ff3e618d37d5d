"""OneHotCategorical with straight-through gradients."""

from .one_hot_categorical import OneHotCategorical


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """One-hot draws whose gradient is that of the probabilities (the
    straight-through estimator): rsample = sample + probs - probs.detach()."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        draws = self.sample(sample_shape)
        probs = self.probs  # expands with the sample below
        return draws + (probs - probs.detach())
