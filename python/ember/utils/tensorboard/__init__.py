"""ember.utils.tensorboard: present so that scripts importing
torch.utils.tensorboard run; writing TensorBoard logs is not supported by
Ember, and creating a SummaryWriter says so."""


class SummaryWriter:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("ember.utils.tensorboard.SummaryWriter: TensorBoard logging is not supported by Ember; "
                           "log with print() or another logger")
