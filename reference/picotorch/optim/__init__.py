"""``picotorch.optim``: ``Optimizer``, the optimizers (``SGD``, ``Adam``, ``AdamW``, ``RMSprop``, ``Adagrad``,
``Adamax``, ``NAdam``, ``RAdam``, ``Adadelta``, ``ASGD``, ``Rprop``) and ``lr_scheduler``. Models ``torch/optim/``."""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

# as torch/optim/__init__.py: the optimizers' modules are not attributes of the package (import them by name)
del adadelta, adagrad, adam, adamax, adamw, asgd, nadam, optimizer, radam, rmsprop, rprop, sgd  # noqa: F821

__all__ = ["ASGD", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "Optimizer", "RAdam",
           "RMSprop", "Rprop", "lr_scheduler"]
