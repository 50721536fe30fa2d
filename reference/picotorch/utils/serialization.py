"""``picotorch.save`` / ``picotorch.load``. Plays the part of ``torch/serialization.py``, in its own format.

A saved file is a ZIP archive (not PyTorch's pickle-based ``.pt``; neither library reads the other's):

- ``manifest.json``: ``{"format": "picotorch-save", "version": 1, "object": <node>}``, where a node is
  a JSON value for ``None``, bools, ints, strings; ``{"float": repr}`` for floats (exact, also inf/nan);
  ``{"list": [...]}``, ``{"tuple": [...]}``; ``{"dict": [[key, value], ...], "ordered": bool}`` (keys are
  nodes too, so optimizer states keyed by ints survive); ``{"tensor": i, "storage": j, "offset": n,
  "dtype": "float32", "shape": [...], "stride": [...], "requires_grad": bool, "parameter": bool}``;
- ``storages/<j>``: the bytes of storage ``j``, whole, in the machine's byte order.

As in PyTorch, a tensor referred to twice is stored once and loads as one tensor, and tensors that share a
storage (views, ``detach()``) load sharing one, each at its offset with its strides, the whole storage saved
even for a small view of it. Tensors load onto the CPU (or ``map_location``). Version 1 files (one C-contiguous
``tensors/<i>`` per tensor) still load. Only these types can be saved: anything else raises ``TypeError``.
"""

from __future__ import annotations

import os
from collections import OrderedDict

import numpy as np

from .._C import from_numpy
from .._tensor import Tensor
from ..c10 import scalar_type as st
from ..native.helpers import storage_bytes, strided_tensor
from ..nn.parameter import Parameter

FORMAT, VERSION = "picotorch-save", 2


def save(obj, f) -> None:
    blobs: list[bytes] = []
    memo: dict = {"storages": {}, "alive": []}
    manifest = {"format": FORMAT, "version": VERSION, "object": _encode(obj, blobs, memo)}
    import json  # lazy, as zipfile below: only save and load need them (chapter 06, import time)
    import zipfile

    with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        for i, blob in enumerate(blobs):
            archive.writestr(f"storages/{i}", blob)


def load(f, map_location=None, weights_only: bool = True):
    if isinstance(f, (str, os.PathLike)) and not os.path.exists(f):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: '{os.fspath(f)}'")
    import json  # lazy, as zipfile below: only save and load need them (chapter 06, import time)
    import zipfile

    with zipfile.ZipFile(f) as archive:
        manifest = json.loads(archive.read("manifest.json"))
        if manifest.get("format") != FORMAT:
            raise RuntimeError("not a file written by picotorch.save")
        return _decode(manifest["object"], archive, {"storages": {}}, map_location)


def _encode(obj, blobs, memo):
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return {"float": repr(obj)}
    if isinstance(obj, Tensor):
        return _encode_tensor(obj, blobs, memo)
    if isinstance(obj, list):
        return {"list": [_encode(v, blobs, memo) for v in obj]}
    if isinstance(obj, tuple):
        return {"tuple": [_encode(v, blobs, memo) for v in obj]}
    if isinstance(obj, dict):
        return {"dict": [[_encode(k, blobs, memo), _encode(v, blobs, memo)] for k, v in obj.items()],
                "ordered": isinstance(obj, OrderedDict)}
    raise TypeError(f"picotorch.save cannot store an object of type {type(obj).__name__}")


def _encode_tensor(t, blobs, memo):
    if id(t) not in memo:
        host = t.detach().cpu()
        storage = host.untyped_storage()
        memo["alive"].append(storage)  # (its array's id stays its own until the file is written)
        if id(storage._array) not in memo["storages"]:
            memo["storages"][id(storage._array)] = len(blobs)
            blobs.append(storage_bytes(storage._array).tobytes())
        memo[id(t)] = {"tensor": len(memo) - 2, "storage": memo["storages"][id(storage._array)],
                       "offset": host.storage_offset(), "dtype": str(t.dtype).removeprefix("torch."),
                       "shape": list(host.shape), "stride": list(host.stride()),
                       "requires_grad": bool(t.requires_grad), "parameter": isinstance(t, Parameter)}
    return memo[id(t)]


def _decode(node, archive, loaded, map_location):
    if not isinstance(node, dict):
        return node
    if "float" in node:
        return float(node["float"])
    if "list" in node:
        return [_decode(v, archive, loaded, map_location) for v in node["list"]]
    if "tuple" in node:
        return tuple(_decode(v, archive, loaded, map_location) for v in node["tuple"])
    if "dict" in node:
        items = [(_hashable(_decode(k, archive, loaded, map_location)), _decode(v, archive, loaded, map_location))
                 for k, v in node["dict"]]
        return OrderedDict(items) if node["ordered"] else dict(items)
    if node["tensor"] not in loaded:
        loaded[node["tensor"]] = _decode_tensor(node, archive, loaded, map_location)
    return loaded[node["tensor"]]


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


def _decode_tensor(node, archive, loaded, map_location):
    dtype = getattr(st, node["dtype"]) if node["dtype"] != "bool" else st.bool_
    if "storage" not in node:  # version 1: the tensor's own bytes
        raw = archive.read(f"tensors/{node['tensor']}")
        array = np.frombuffer(raw, dtype=st.to_numpy_dtype(dtype)).reshape(node["shape"]).copy()
        t = from_numpy(array) if dtype is not st.bfloat16 else from_numpy(array.astype(np.float32)).to(dtype)
    else:
        storages = loaded["storages"]
        if node["storage"] not in storages:
            storages[node["storage"]] = np.frombuffer(archive.read(f"storages/{node['storage']}"), np.uint8).copy()
        t = strided_tensor(storages[node["storage"]], node["offset"], node["shape"], node["stride"], dtype)
        t._version_counter.bump()  # (PyTorch rebuilds it with set_, an in-place op)
    if map_location is not None:
        t = t.to(map_location)
    if node["parameter"]:
        return Parameter(t, requires_grad=node["requires_grad"])
    return t.requires_grad_() if node["requires_grad"] else t


__all__ = ["load", "save"]
