"""oneDNN (formerly MKL-DNN), which Ember's CPU convolutions and pooling use."""

enabled = True


def is_available():
    return True
