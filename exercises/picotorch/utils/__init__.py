"""``picotorch.utils``: small helpers shared by several layers (``torch/utils/``)."""
