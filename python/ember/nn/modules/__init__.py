"""The layer classes of ember.nn."""

from .module import Module, RemovableHandle, register_module_forward_hook, register_module_forward_pre_hook  # noqa: F401
from .container import Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential  # noqa: F401
from .linear import Bilinear, Identity, Linear, NonDynamicallyQuantizableLinear  # noqa: F401
from .conv import Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d  # noqa: F401
from .pooling import (  # noqa: F401
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d, Upsample,
)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm  # noqa: F401
from .normalization import GroupNorm, LayerNorm, RMSNorm  # noqa: F401
from .dropout import Dropout, Dropout1d, Dropout2d  # noqa: F401
from .sparse import Embedding, EmbeddingBag  # noqa: F401
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: F401
from .activation import (  # noqa: F401
    ELU, GELU, GLU, SELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish,
    MultiheadAttention, PReLU, ReLU, ReLU6, Sigmoid, SiLU, Softmax, Softmin, Softplus, Softsign, Tanh, Tanhshrink,
)
from .loss import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, CTCLoss, HuberLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss,
    NLLLoss2d, SmoothL1Loss,
)
from .flatten import Flatten, Unflatten  # noqa: F401
from .._linear_cross_entropy import LinearCrossEntropyOptions  # noqa: F401
from .loss import LinearCrossEntropyLoss  # noqa: F401
from .transformer import (  # noqa: F401
    Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: F401

from .padding import *  # noqa: F401,F403
from .pixelshuffle import ChannelShuffle, Fold, PixelShuffle, PixelUnshuffle, Unfold  # noqa: F401
from .distance import CosineSimilarity, PairwiseDistance  # noqa: F401
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: F401
from .activation import CELU, Hardshrink, RReLU, Softmax2d, Softshrink, Threshold  # noqa: F401
from .loss import (  # noqa: F401
    CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss, MarginRankingLoss, MultiLabelSoftMarginLoss,
    MultiLabelMarginLoss, MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .dropout import AlphaDropout, Dropout3d, FeatureAlphaDropout  # noqa: F401
from .normalization import CrossMapLRN2d, LocalResponseNorm  # noqa: F401
from .pooling import AdaptiveMaxPool1d, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: F401
from .pooling import (  # noqa: F401
    AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, FractionalMaxPool2d, FractionalMaxPool3d, LPPool1d, LPPool2d,
    LPPool3d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d,
)
from .lazy import (  # noqa: F401
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
    LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear,
    LazyModuleMixin,
)
from . import padding as _padding

__all__ = [
    "AdaptiveAvgPool1d",
    "AdaptiveLogSoftmaxWithLoss",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "AlphaDropout",
    "AvgPool1d",
    "AvgPool2d",
    "AvgPool3d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "Bilinear",
    "CELU",
    "CTCLoss",
    "ChannelShuffle",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "CosineEmbeddingLoss",
    "CosineSimilarity",
    "CrossEntropyLoss",
    "LinearCrossEntropyLoss",
    "LinearCrossEntropyOptions",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "ELU",
    "Embedding",
    "EmbeddingBag",
    "FeatureAlphaDropout",
    "FractionalMaxPool2d",
    "FractionalMaxPool3d",
    "Flatten",
    "Fold",
    "GELU",
    "GLU",
    "GRU",
    "GRUCell",
    "GaussianNLLLoss",
    "GroupNorm",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "HingeEmbeddingLoss",
    "HuberLoss",
    "Identity",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "KLDivLoss",
    "L1Loss",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "LSTM",
    "LSTMCell",
    "LayerNorm",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
    "LazyLinear",
    "LeakyReLU",
    "Linear",
    "LocalResponseNorm",
    "CrossMapLRN2d",
    "SyncBatchNorm",
    "LogSigmoid",
    "LogSoftmax",
    "MSELoss",
    "MarginRankingLoss",
    "MaxPool1d",
    "MaxPool2d",
    "MaxPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
    "Mish",
    "Module",
    "ModuleDict",
    "ModuleList",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "MultiheadAttention",
    "NLLLoss",
    "NLLLoss2d",
    "NonDynamicallyQuantizableLinear",
    "PReLU",
    "PairwiseDistance",
    "ParameterDict",
    "ParameterList",
    "PixelShuffle",
    "PixelUnshuffle",
    "PoissonNLLLoss",
    "RMSNorm",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "RReLU",
    "ReLU",
    "ReLU6",
    "RemovableHandle",
    "SELU",
    "Sequential",
    "Container",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "SoftMarginLoss",
    "Softmax",
    "Softmax2d",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "Threshold",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "TripletMarginLoss",
    "TripletMarginWithDistanceLoss",
    "Unflatten",
    "Unfold",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
] + list(_padding.__all__)
