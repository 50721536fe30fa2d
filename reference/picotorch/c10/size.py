"""``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``.

Models ``torch/csrc/Size.cpp``.
"""

import operator


class Size(tuple):
    def __new__(cls, sizes=()):
        return super().__new__(cls, (_as_size(i, s) for i, s in enumerate(sizes)))

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, index):
        result = super().__getitem__(index)
        return Size(result) if isinstance(index, slice) else result

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


def size_of_shape(shape: tuple) -> Size:
    """The ``Size`` of an array's shape, which holds Python ints already: no item needs checking (``sizes()``
    on every ``x.shape``)."""
    return tuple.__new__(Size, shape)


def _as_size(position: int, value) -> int:
    """``THPSize_pynew``: every item must be an integer (anything with ``__index__``), never a float."""
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {position} is '{type(value).__name__}')") \
            from None
