"""``picotorch.nn``: ``Parameter``, ``Module`` and the layers, losses, ``functional`` and ``init``.

Models ``torch/nn/__init__.py``: ``torch/nn/parameter.py``, ``torch/nn/modules/`` (one file per kind of
layer), ``torch/nn/functional.py`` and ``torch/nn/init.py`` — what a first training loop needs.
"""

from . import functional, init, utils
from .modules import (
    ELU,
    GELU,
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    BCEWithLogitsLoss,
    Conv1d,
    Conv2d,
    ConvTranspose1d,
    ConvTranspose2d,
    CrossEntropyLoss,
    Dropout,
    Dropout2d,
    Embedding,
    Flatten,
    GroupNorm,
    Hardtanh,
    HuberLoss,
    Identity,
    InstanceNorm1d,
    InstanceNorm2d,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool1d,
    MaxPool2d,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
    Softmax,
    Softplus,
    Tanh,
)
from .parameter import Parameter

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "AvgPool1d", "AvgPool2d", "BCEWithLogitsLoss",
    "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "CrossEntropyLoss",
    "Dropout", "Dropout2d", "ELU", "Embedding", "Flatten", "GELU", "GroupNorm", "Hardtanh", "HuberLoss", "Identity",
    "InstanceNorm1d", "InstanceNorm2d", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss",
    "MaxPool1d", "MaxPool2d", "Module", "ModuleDict", "ModuleList", "NLLLoss", "Parameter", "ReLU", "Sequential",
    "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax", "Softplus", "Tanh", "functional", "init", "utils",
]
