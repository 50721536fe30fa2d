"""``picotorch.nn``: ``Parameter``, ``Module`` and the layers, losses, ``functional`` and ``init``.

Models ``torch/nn/__init__.py``: ``torch/nn/parameter.py``, ``torch/nn/modules/`` (one file per kind of
layer), ``torch/nn/functional.py`` and ``torch/nn/init.py`` — what a first training loop needs.
"""

from . import functional, init, utils
from .modules import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    Dropout,
    Embedding,
    Flatten,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    HuberLoss,
    Identity,
    L1Loss,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSigmoid,
    LogSoftmax,
    Mish,
    Module,
    ModuleDict,
    ModuleList,
    MSELoss,
    NLLLoss,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sequential,
    Sigmoid,
    SiLU,
    SmoothL1Loss,
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
from .parameter import Parameter

__all__ = [
    "BCEWithLogitsLoss", "CELU", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU", "GLU",
    "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU",
    "Linear", "LogSigmoid", "LogSoftmax", "MSELoss", "Mish", "Module", "ModuleDict", "ModuleList", "NLLLoss", "PReLU",
    "Parameter", "RReLU", "ReLU", "ReLU6", "SELU", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax",
    "Softmax2d", "Softmin", "Softplus", "Softshrink", "Softsign", "Tanh", "Tanhshrink", "Threshold", "functional",
    "init", "utils",
]
