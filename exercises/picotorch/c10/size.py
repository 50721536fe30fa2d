"""``torch.Size``: a tuple of ints that prints as ``torch.Size([2, 3])``.

Models ``torch/csrc/Size.cpp``.
"""


class Size(tuple):
    def __new__(cls, sizes=()):
        return super().__new__(cls, (int(s) for s in sizes))

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
