"""Apple's Metal (MPS) backend: not part of Ember."""


def is_available():
    return False


def is_built():
    return False
