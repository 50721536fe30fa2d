"""``picotorch.utils.data``: data sets, samplers, ``DataLoader``. Models ``torch/utils/data/``."""

from . import datasets
from ._collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import Dataset, Subset, TensorDataset, random_split
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["BatchSampler", "DataLoader", "Dataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset",
           "TensorDataset", "datasets", "default_collate", "default_convert", "random_split"]
