"""``picotorch.optim``: ``Optimizer``, ``SGD``, ``Adam``, ``AdamW`` and ``lr_scheduler``. Models ``torch/optim/``."""

from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["SGD", "Adam", "AdamW", "Optimizer", "lr_scheduler"]
