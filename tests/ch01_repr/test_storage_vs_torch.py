"""A tensor's storage as a learner sees it: ``storage_offset()`` of every tensor that shares memory (views, empty
slices, ``detach()``, ``unsafe_split``, ``as_strided_``, inference-mode views), ``untyped_storage()`` (its bytes,
size, pointer, print, one object per storage), ``storage()`` (a ``TypedStorage`` and its deprecation warning, once
per process) and ``is_set_to``; each program runs on picotorch and on PyTorch and the two are compared."""

from __future__ import annotations

import copy
import io
import warnings

import numpy as np
import pytest

from picotorch_course.difftest import assert_same

pytest.importorskip("torch")

_A = np.arange(12.0).reshape(3, 4)


def _offsets(*tensors):
    return [t.storage_offset() for t in tensors]


def _warned(T, call):
    """What ``call()`` warned, the once-per-process flag reset first (and again after, for the next program)."""
    T.storage._reset_warn_typed_storage_removal()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    T.storage._reset_warn_typed_storage_removal()
    return result, [(w.category.__name__, str(w.message), w.filename == __file__, w.lineno) for w in caught]


def _storage_facts(s):
    return s.nbytes(), s.size(), len(s), s.element_size(), str(s.device), s.tolist()


def _as_strided_in_place(T, numel, *geometry):
    y = T.zeros(numel)
    y.as_strided_(*geometry)
    return y.storage_offset(), y.stride(), y.shape, y._is_view()


def _in_inference_mode(T):
    with T.inference_mode():
        a = T.arange(5.0)
        b = a[2:]
    return b.storage_offset(), b._is_view(), b.untyped_storage() is a.untyped_storage()


def _write_a_byte(T):
    x = T.zeros(2)
    x.untyped_storage()[3] = 63  # the high byte of float32 0.5 (little-endian)
    x.untyped_storage()[4:6] = 0
    return x, x._version


def _typed_facts(T, x):
    ts = x[1:].storage()
    return (ts.size(), len(ts), str(ts.dtype), str(ts.device), ts.tolist(), ts[1], ts[-1], ts.element_size(),
            ts.nbytes(), ts.data_ptr() == x.data_ptr(), ts._untyped_storage is x.untyped_storage(),
            ts.untyped() is x.untyped_storage(), ts.is_cuda, ts.get_device(), ts is x.storage(), T.is_storage(ts),
            repr(ts) == str(ts), type(ts[0]).__name__, ts.cpu().tolist())


def _deepcopy_grad_and_attributes(T):
    p = T.ones(2, requires_grad=True)
    (p * 3).sum().backward()
    p.note = [1, 2]
    q = copy.deepcopy(p)
    return q, q.grad, q.requires_grad, q.is_leaf, q.note, q.note is p.note, q.grad is p.grad


def _deepcopy_of_inference_tensor(T):
    with T.inference_mode():
        t = T.ones(2)
    d = copy.deepcopy(t)
    return d.is_inference(), d._version


def _round_trip(T, obj):
    buffer = io.BytesIO()
    T.save(obj, buffer)
    buffer.seek(0)
    return T.load(buffer)


def _saved_and_loaded(T):
    x, w = T.arange(6.0), T.nn.Parameter(T.arange(4.0))
    d = _round_trip(T, {"x": x, "v": x[2:], "t": x.view(2, 3).t(), "w": w, "wv": w.detach()[1:], "e": x[6:],
                        "b": T.tensor([1.5, 2.5], dtype=T.bfloat16)[1:], "again": x})
    facts = {k: (type(t).__name__, t.storage_offset(), t.untyped_storage().nbytes(), t.stride(), t._version, t)
             for k, t in d.items()}
    shared = (d["v"].untyped_storage() is d["x"].untyped_storage(), d["wv"].untyped_storage() is
              d["w"].untyped_storage(), d["e"].untyped_storage() is d["x"].untyped_storage(), d["again"] is d["x"],
              d["v"]._is_view())
    d["v"].mul_(10)
    return facts, shared, d["x"]


def _typed_warning_each_time(T):
    T.storage._set_always_warn_typed_storage_removal(True)
    try:
        return _warned(T, lambda: (T.ones(1).storage(), T.ones(1).storage().size())[1])
    finally:
        T.storage._set_always_warn_typed_storage_removal(False)


PROGRAMS = {
    # storage_offset of tensors that share memory without being autograd views, and of empty slices
    "an empty slice keeps its place": lambda T: _offsets(T.arange(10.0)[5:5], T.arange(10.0)[10:],
                                                         T.arange(10.0)[12:3], T.arange(10.0)[5:5][0:0]),
    "an empty slice of a matrix": lambda T: (lambda x: _offsets(x[5:5], x[:, 2:2], x[1:, 3:3], x[1:1].t()))(
        T.arange(12.0).view(3, 4)),
    "an empty slice with a step": lambda T: (lambda v: (v.storage_offset(), v.stride()))(
        T.arange(12.0).view(3, 4)[:, 3:3:2]),
    "narrow and split to nothing": lambda T: _offsets(T.arange(10.0).narrow(0, 3, 0),
                                                      *T.arange(10.0).split([3, 0, 7]), *T.arange(4.0).chunk(4)),
    "select on an empty tensor": lambda T: _offsets(T.zeros(0, 3)[:, 1], T.zeros(2, 3)[2:][:, 1],
                                                   T.zeros(2, 0, 4)[1], T.zeros(2, 3)[5:, 1:]),
    "unsafe_split and unsafe_chunk share the storage": lambda T: [
        (p.storage_offset(), p._is_view(), p.untyped_storage().nbytes())
        for p in (*T.tensor([1.0, 2.0, 3.0, 4.0]).unsafe_split(2), *T.arange(6.0).unsafe_chunk(3),
                  *T.arange(6.0).view(2, 3).unsafe_split_with_sizes([1, 2], 1))],
    "detach and .data of a view": lambda T: (lambda x: (_offsets(x[3:].detach(), x[3:].data, x[1:][2:].detach()),
                                                        x[3:].detach()._is_view()))(T.arange(10.0)),
    "view(dtype) of a slice": lambda T: _offsets(T.arange(6.0)[2:].view(T.int32), T.arange(6.0)[2:].view(T.int8),
                                                T.arange(6.0, dtype=T.float64)[1:].view(T.float32)),
    "view(dtype) to a wider dtype checks the offset": lambda T: T.arange(6.0)[1:5].view(T.float64),
    "as_strided_ moves the tensor in its storage": lambda T: _as_strided_in_place(T, 6, (2, 2), (1, 3), 1),
    "as_strided_ out of the storage": lambda T: _as_strided_in_place(T, 4, (2, 2), (1, 3), 1),
    "as_strided_ keeps the offset": lambda T: (lambda y: (y.as_strided_((2,), (2,)), y.storage_offset()))(
        T.arange(8.0)[3:].detach()),
    "as_strided counts from the storage of a detached view": lambda T: T.arange(6.0)[2:].detach().as_strided(
        (2,), (1,), 0),
    "as_strided's default offset of a detached view": lambda T: (lambda v: (v, v.storage_offset()))(
        T.arange(6.0)[2:].detach().as_strided((2,), (2,))),
    "as_strided of an unsafe_split piece checks its storage": lambda T: T.arange(6.0).unsafe_split(3)[1].as_strided(
        (6,), (1,)),
    "as_strided of a piece past the storage": lambda T: T.arange(6.0).unsafe_split(3)[1].as_strided((4,), (1,)),
    "as_strided with nothing at an offset": lambda T: _offsets(T.arange(6.0).as_strided((0, 2), (1, 1), 5)),
    "inference-mode views": _in_inference_mode,
    "views and copies": lambda T: (lambda x: _offsets(x.T, x[1:].T, x[1:].mT, x[:, 1:].t().contiguous(), x[1:].clone(),
                                                      x[1:, 2].unsqueeze(0), x.diagonal(1), x[1:].flatten(),
                                                      x[:, 1:].reshape(-1)))(T.arange(12.0).view(3, 4)),
    # untyped_storage()
    "the bytes of an int64 tensor": lambda T: _storage_facts(T.tensor([1, 2, 3]).untyped_storage()),
    "a view's storage is its base's": lambda T: (lambda x: (
        x[1:].untyped_storage().nbytes(), x[1:].untyped_storage().data_ptr() == x.data_ptr(),
        x[2:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), x.t().untyped_storage().size()))(
        T.arange(12.0).view(3, 4)),
    "one storage object per storage": lambda T: (lambda x: (
        x.untyped_storage() is x.untyped_storage(), x[1:].untyped_storage() is x.untyped_storage(),
        x.detach().untyped_storage() is x.untyped_storage(), x.view(T.int32).untyped_storage() is x.untyped_storage(),
        x.clone().untyped_storage() is x.untyped_storage()))(T.arange(4.0)),
    "print an untyped storage": lambda T: print(T.tensor([1.0, 2.0]).untyped_storage()),
    "repr of an untyped storage": lambda T: repr(T.tensor([True, False]).untyped_storage()),
    "print an empty storage": lambda T: print(T.tensor([]).untyped_storage()),
    "print the storage of a float16 view": lambda T: print(
        T.tensor([1.5, 2.0, 0.1], dtype=T.float16)[1:].untyped_storage()),
    "index a storage's bytes": lambda T: (lambda s: (s[0], s[-1], s[-16], s[7], type(s[0]).__name__))(
        T.arange(4.0).untyped_storage()),
    "slice a storage": lambda T: (lambda s: (s[1:3].tolist(), s[-3:].tolist(), s[10:2].nbytes(), len(s[20:30]),
                                             str(s[-2:])))(T.arange(4.0).untyped_storage()),
    "a storage index out of range": lambda T: T.arange(4.0).untyped_storage()[16],
    "a negative storage index out of range": lambda T: T.arange(4.0).untyped_storage()[-17],
    "a storage slice with a step": lambda T: T.arange(4.0).untyped_storage()[1:5:2],
    "a storage indexed by a float": lambda T: T.arange(4.0).untyped_storage()[1.0],
    "write a storage's bytes": _write_a_byte,
    "write bytes that do not fit one": lambda T: (lambda x: (x.untyped_storage().__setitem__(0, 300),
                                                            x.untyped_storage().__setitem__(3, -1),
                                                            x.untyped_storage().__setitem__(slice(-3, 10), 258), x))(
        T.zeros(2, dtype=T.int16)),
    "write a storage at a negative index": lambda T: T.zeros(2).untyped_storage().__setitem__(-1, 1),
    "write a float into a storage": lambda T: T.zeros(2).untyped_storage().__setitem__(0, 1.5),
    "write a storage at a string": lambda T: T.zeros(2).untyped_storage().__setitem__("a", 1),
    "write a storage out of range": lambda T: T.zeros(2).untyped_storage().__setitem__(8, 1),
    "write a storage slice with a step": lambda T: T.zeros(2).untyped_storage().__setitem__(slice(0, 8, 2), 1),
    "fill a storage": lambda T: (lambda x: (x.untyped_storage().fill_(1) is x.untyped_storage(), x,
                                            x.untyped_storage().fill_(300).tolist(), x.untyped_storage().fill_(-1)
                                            .tolist()))(T.arange(3, dtype=T.int16)),
    "fill a storage with a float": lambda T: T.zeros(2).untyped_storage().fill_(1.5),
    "copy into a storage": lambda T: (lambda x: (x.untyped_storage().copy_(
        T.tensor([7, 8, 9], dtype=T.int16).untyped_storage()) is x.untyped_storage(), x))(T.zeros(3, dtype=T.int16)),
    "copy a storage of another size": lambda T: T.zeros(2).untyped_storage().copy_(T.zeros(3).untyped_storage()),
    "copy a tensor into a storage": lambda T: T.zeros(2).untyped_storage().copy_(T.zeros(2)),
    "clone and copy a storage": lambda T: (lambda x, s: (
        s.clone().tolist(), s.clone() is s, s.clone().data_ptr() == s.data_ptr(), copy.copy(s).tolist(),
        copy.copy(s) is s, copy.deepcopy(s).tolist(), (lambda pair: pair[0] is pair[1])(copy.deepcopy([s, s])),
        s == x.untyped_storage(), s == s.clone()))(*(lambda x: (x, x.untyped_storage()))(T.arange(3, dtype=T.int16))),
    "an empty tensor's storage": lambda T: (lambda s: (s.nbytes(), s.data_ptr(), s.tolist()))(
        T.tensor([]).untyped_storage()),
    "what else a storage says": lambda T: (lambda s: (s.get_device(), s.is_cuda, s.cpu() is s, s.is_shared(),
                                                      s.is_pinned(), s.filename, s.type()))(
        T.ones(2).untyped_storage()),
    "untyped_storage takes no argument": lambda T: T.ones(2).untyped_storage(1),
    "new untyped storages": lambda T: (str(T.UntypedStorage()), T.UntypedStorage(3).nbytes(),
                                       T.UntypedStorage is T.storage.UntypedStorage),
    "is_storage": lambda T: (T.is_storage(T.ones(2).untyped_storage()), T.is_storage(T.ones(2)),
                             T.is_storage([1, 2]), "UntypedStorage" in T.__all__, "TypedStorage" in T.__all__,
                             "is_storage" in T.__all__),
    # storage(): a TypedStorage, deprecated
    "storage() warns once": lambda T: _warned(T, lambda: (T.ones(2).storage(), T.ones(2).storage(),
                                                          T.ones(2).storage().size())[2]),
    "storage() warns each time when asked to": _typed_warning_each_time,
    "print a typed storage": lambda T: _warned(T, lambda: print(T.tensor([1.0, 2.0]).storage())),
    "print typed storages of every kind": lambda T: _warned(T, lambda: [
        print(T.tensor(v, dtype=d).storage()) for v, d in (([True, False], T.bool), ([1.5, 0.1], T.float16),
                                                           ([1.5, 0.1], T.bfloat16), ([1, -2], T.int8),
                                                           ([0.1], T.float32), ([], T.float32),
                                                           ([3, 4], T.int64))])[1],
    "a typed storage's facts": lambda T: _warned(T, lambda: _typed_facts(T, T.arange(4.0)))[0],
    "a typed storage of a view as another dtype": lambda T: _warned(
        T, lambda: T.arange(4.0)[1:].view(T.int32).storage().tolist())[0],
    "a typed storage's legacy type name": lambda T: [T.ones(1, dtype=d)._typed_storage().type() for d in (
        T.float32, T.float64, T.float16, T.bfloat16, T.int64, T.int32, T.int16, T.int8, T.uint8, T.bool)],
    # from_numpy / as_tensor: the array's memory in a storage of its own, from its first element
    "from_numpy's storage starts at the array": lambda T: [
        (t.storage_offset(), t.untyped_storage().nbytes(), t.stride(), t.tolist())
        for t in map(T.from_numpy, (_A[1:], _A[:, 1:], _A.T, _A[::2, ::3], _A[1:1], _A[:, 2:2]))],
    "from_numpy of a broadcast array": lambda T: T.from_numpy(np.broadcast_to(np.arange(3.0), (2, 3))).untyped_storage(
    ).nbytes(),
    "from_numpy of a negative stride": lambda T: T.from_numpy(_A[::-1]),
    "from_numpy of a tensor's array is another storage": lambda T: (lambda x: (
        T.from_numpy(x.numpy()).untyped_storage() is x.untyped_storage(), T.from_numpy(x.numpy()).is_set_to(x),
        T.from_numpy(x[1:].numpy()).storage_offset()))(T.arange(4.0)),
    "as_tensor of a NumPy slice": lambda T: (T.as_tensor(_A[1:]).storage_offset(),
                                             T.as_tensor(_A).untyped_storage() is T.as_tensor(_A).untyped_storage()),
    "from_numpy shares the memory": lambda T: (lambda a: (T.from_numpy(a[:, 1:]).mul_(10), a.tolist())[1])(
        np.arange(6.0).reshape(2, 3)),
    "a typed storage index out of range": lambda T: T.arange(4.0)._typed_storage()[4],
    "a negative typed storage index out of range": lambda T: T.arange(4.0)._typed_storage()[-5],
    "a typed storage sliced": lambda T: T.arange(4.0)._typed_storage()[0:1],
    "a typed storage indexed by a string": lambda T: T.arange(4.0)._typed_storage()["a"],
    "storage() takes no argument": lambda T: T.ones(2).storage(1),
    # copy.deepcopy: a copy of the storage (one per storage), each tensor at its place in it
    "deepcopy keeps strides, offset and the storage": lambda T: [
        (d.stride(), d.storage_offset(), d.untyped_storage().nbytes(), d.is_contiguous(), d._version, d)
        for d in map(copy.deepcopy, (lambda x: (x[:, ::2], x[1:], x.t(), x[1:1]))(T.arange(12.0).view(3, 4)))],
    "deepcopy keeps views on one storage": lambda T: (lambda d: (
        d["b"].untyped_storage() is d["a"].untyped_storage(), d["b"]._is_view(), d["b"].storage_offset(),
        d["b"].mul_(10), d["a"]))(copy.deepcopy({"a": T.arange(6.0), "b": T.arange(6.0)[2:]})),
    "deepcopy keeps views of one tensor on one storage": lambda T: (lambda x: (lambda d: (
        d[1].untyped_storage() is d[0].untyped_storage(), d[1].mul_(10), d[0]))(copy.deepcopy([x, x[2:]])))(
        T.arange(6.0)),
    "deepcopy copies the gradient and the attributes": _deepcopy_grad_and_attributes,
    "deepcopy of an inference tensor": _deepcopy_of_inference_tensor,
    "deepcopy of a non-leaf": lambda T: copy.deepcopy(T.ones(2, requires_grad=True) * 2),
    # save / load: storages saved whole, once; tensors load at their offsets, sharing them
    "save and load keep storages": _saved_and_loaded,
    "save and load a small view": lambda T: (lambda t: (t.storage_offset(), t.untyped_storage().nbytes(), t._version,
                                                        t))(_round_trip(T, T.arange(6.0)[2:4])),
    # is_set_to
    "is_set_to": lambda T: (lambda x: (x.is_set_to(x), x.is_set_to(x.detach()), x.is_set_to(x[0:]),
                                       x.is_set_to(x.view(10)), x.is_set_to(x.view(2, 5)), x.is_set_to(x[1:]),
                                       x.is_set_to(x.clone()), x[1:].is_set_to(x[1:].detach()),
                                       x.view(2, 5).t().is_set_to(x.view(2, 5).transpose(0, 1)),
                                       T.zeros(0).is_set_to(T.zeros(0)), T.ones(3).is_set_to(T.ones(3))))(
        T.arange(10.0)),
    "is_set_to of an empty tensor": lambda T: (lambda z: (z.is_set_to(z), z.is_set_to(z.view(0, 1))))(T.zeros(0)),
    "is_set_to without a tensor": lambda T: T.ones(2).is_set_to(),
    "is_set_to of a number": lambda T: T.ones(2).is_set_to(3),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_storage_matches_torch(name):
    assert_same(PROGRAMS[name])
