"""Exercise 6.1: the marked list of given types under a signature that did not match
(``_marked`` in ``picotorch/_C/invalid_arguments.py``, modelling ``_formattedArgDesc`` of PyTorch's
``torch/csrc/utils/invalid_arguments.cpp``). Reached only when no signature accepts a call. Each test
fails on the stub (NotImplementedError) and passes on the reference. The expected texts were printed by
PyTorch 2.13; no torch is needed to run these."""

from __future__ import annotations

import pytest

import picotorch as torch
from exercise_helpers import raised


def x():
    return torch.ones(2, 3)


def message(call) -> str:
    err = raised(call)
    assert isinstance(err, TypeError), f"expected a TypeError, got {err!r}"
    return str(err)


@pytest.mark.exercise("6.1")
def test_a_misfit_is_marked_and_a_fit_is_not():
    """Positional values: the type name as it is where it fits the signature's type, !name! where not."""
    assert message(lambda: x().where(x() > 0, "a")) == (
        "where() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        " * (Tensor condition, Tensor other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n"
        " * (Tensor condition, Number other)\n"
        "      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n")


@pytest.mark.exercise("6.1")
def test_a_keyword_is_written_name_equals_type_and_keeps_its_comma():
    """A keyword shows as !other=str!; with no positional values the trailing ", " stays: (!other=str!, )."""
    assert message(lambda: x().bitwise_and(other="a")) == (
        "bitwise_and() received an invalid combination of arguments - got (other=str, ), but expected one of:\n"
        " * (Tensor other)\n"
        "      didn't match because some of the arguments have invalid types: (!other=str!, )\n"
        " * (Number other)\n"
        "      didn't match because some of the arguments have invalid types: (!other=str!, )\n")


@pytest.mark.exercise("6.1")
def test_lists_and_tuples_show_their_elements():
    """A list prints as list of [str], a one-element tuple as tuple of (str,); nothing is a tuple of ints here."""
    assert message(lambda: x().squeeze(["a"])) == (
        "squeeze() received an invalid combination of arguments - got (list), but expected one of:\n"
        " * ()\n"
        "      didn't match because some of the arguments have invalid types: (!list of [str]!)\n"
        " * (int dim)\n"
        "      didn't match because some of the arguments have invalid types: (!list of [str]!)\n"
        " * (tuple of ints dim)\n"
        "      didn't match because some of the arguments have invalid types: (!list of [str]!)\n")
    assert "(!tuple of (str,)!)" in message(lambda: x().squeeze(("a",)))


@pytest.mark.exercise("6.1")
def test_the_type_comes_from_the_printed_text():
    """PyTorch reads "Tensor min = None" back as type "Tensor min =": so even a Tensor is marked there."""
    assert message(lambda: x().clamp(x(), "a")) == (
        "clamp() received an invalid combination of arguments - got (Tensor, str), but expected one of:\n"
        " * (Tensor min = None, Tensor max = None)\n"
        "      didn't match because some of the arguments have invalid types: (!Tensor!, !str!)\n"
        " * (Number min = None, Number max = None)\n"
        "      didn't match because some of the arguments have invalid types: (!Tensor!, !str!)\n")


@pytest.mark.exercise("6.1")
def test_the_single_listed_signature_is_marked_too():
    """With one signature shown (sub's deprecated one is hidden), the got (...) list itself is marked."""
    assert message(lambda: x().sub(x(), x(), x())) == (
        "sub() received an invalid combination of arguments - got (Tensor, !Tensor!, !Tensor!), "
        "but expected (Tensor other, *, Number alpha = 1)")
