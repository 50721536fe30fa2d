"""The layers of ``torch.nn``, one module per file of ``torch/nn/modules/``."""

from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmax2d,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .container import ModuleDict, ModuleList, Sequential
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .module import Module
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = [
    "BCEWithLogitsLoss", "CELU", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "GLU",
    "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU",
    "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "Mish", "Module", "ModuleDict", "ModuleList", "NLLLoss", "PReLU",
    "RReLU", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax", "Softmax2d",
    "Softmin", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold",
]
