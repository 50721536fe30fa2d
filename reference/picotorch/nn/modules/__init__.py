"""The layers of ``torch.nn``, one module per file of ``torch/nn/modules/``."""

from .activation import ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Softplus, Tanh
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .module import Module
from .normalization import LayerNorm
from .sparse import Embedding

__all__ = [
    "BCEWithLogitsLoss", "Conv1d", "Conv2d", "CrossEntropyLoss", "Dropout", "ELU", "Embedding", "Flatten", "GELU",
    "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MSELoss",
    "Module", "ModuleDict", "ModuleList", "NLLLoss", "ReLU", "Sequential", "SiLU", "Sigmoid", "SmoothL1Loss", "Softmax",
    "Softplus", "Tanh",
]
