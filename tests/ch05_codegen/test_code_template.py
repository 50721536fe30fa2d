"""Chapter 05: ``picotorchgen.code_template`` (``torchgen/code_template.py``) fills ``$name`` holes.

Every expected text below is written out by hand.
"""

import doctest

import pytest

from picotorchgen import code_template
from picotorchgen.code_template import CodeTemplate


def test_the_examples_in_the_module_docstring_hold():
    results = doctest.testmod(code_template)
    assert results.attempted >= 4 and results.failed == 0


def test_dollar_name_and_braced_name_are_replaced_by_the_value():
    t = CodeTemplate("def $name(${arg}): return ${arg}2")
    assert t.substitute(name="double", arg="x") == "def double(x): return x2"


def test_non_string_values_are_printed_with_str():
    assert CodeTemplate("n = $n; f = ${f}").substitute(n=3, f=0.5) == "n = 3; f = 0.5"


def test_an_inline_list_is_joined_with_comma_space():
    assert CodeTemplate("f($args)").substitute(args=["a", "b", 1]) == "f(a, b, 1)"
    assert CodeTemplate("f($args)").substitute(args=[]) == "f()"


def test_comma_before_appears_only_for_a_non_empty_list():
    t = CodeTemplate("f(self${,rest})")
    assert t.substitute(rest=["other", "alpha"]) == "f(self, other, alpha)"
    assert t.substitute(rest=[]) == "f(self)"


def test_comma_after_appears_only_for_a_non_empty_list():
    t = CodeTemplate("f(${first,}out)")
    assert t.substitute(first=["a"]) == "f(a, out)"
    assert t.substitute(first=[]) == "f(out)"


def test_a_hole_alone_on_its_line_puts_each_item_on_its_own_line_at_its_indentation():
    t = CodeTemplate("def f():\n    ${body}\n    return x\n")
    assert t.substitute(body=["x = 1", "x += 2"]) == "def f():\n    x = 1\n    x += 2\n    return x\n"


def test_a_block_indents_every_line_of_a_multi_line_item():
    t = CodeTemplate("class A:\n    ${methods}\n")
    method = "def f(self):\n    return 1\n"
    assert t.substitute(methods=[method, "x = 2"]) == "class A:\n    def f(self):\n        return 1\n    x = 2\n"


def test_a_string_value_in_block_position_is_indented_line_by_line():
    t = CodeTemplate("if c:\n    $body\n")
    assert t.substitute(body="a()\nb()") == "if c:\n    a()\n    b()\n"


def test_blank_lines_in_a_block_carry_no_indentation():
    t = CodeTemplate("class A:\n    ${parts}\n")
    assert t.substitute(parts=["x = 1", "", "y = 2\n\nz = 3"]) == "class A:\n    x = 1\n\n    y = 2\n\n    z = 3\n"


def test_an_empty_block_takes_its_line_away():
    t = CodeTemplate("a\n    ${optional}\nb\n")
    assert t.substitute(optional=[]) == "a\nb\n"


def test_a_block_on_the_last_line_without_newline():
    assert CodeTemplate("a\n  $x").substitute(x=["p", "q"]) == "a\n  p\n  q"


def test_a_hole_with_text_after_it_on_the_line_is_inline():
    t = CodeTemplate("    $value + 1\n")
    assert t.substitute(value=["a", "b"]) == "    a, b + 1\n"


def test_a_value_containing_a_dollar_is_not_substituted_again():
    assert CodeTemplate("$a").substitute(a="$b", b="no") == "$b"


def test_keyword_arguments_win_over_env():
    t = CodeTemplate("$x $y")
    assert t.substitute({"x": "env", "y": "env"}, y="kw") == "env kw"


def test_a_missing_name_raises_key_error():
    with pytest.raises(KeyError):
        CodeTemplate("$missing").substitute()


def test_from_file_reads_the_template(tmp_path):
    path = tmp_path / "t.py.in"
    path.write_text("x = $value\n")
    t = CodeTemplate.from_file(path)
    assert t.filename == str(path)
    assert t.substitute(value=7) == "x = 7\n"


# ---- more expansion cases: nesting, comma forms with every kind of value, indentation of multi-line values


def test_a_template_filled_into_an_indented_block_of_another_keeps_its_own_indentation_relative_to_it():
    inner = CodeTemplate("if ${cond}:\n    ${body}\n").substitute(cond="x", body=["a()", "b()"])
    outer = CodeTemplate("def f():\n    for x in xs:\n        ${loop}\n    return\n").substitute(loop=[inner])
    assert outer == "def f():\n    for x in xs:\n        if x:\n            a()\n            b()\n    return\n"


def test_three_levels_of_nesting_add_up_their_indentations():
    leaf = CodeTemplate("${name} = 0").substitute(name="n")
    middle = CodeTemplate("while True:\n    ${body}\n").substitute(body=[leaf, "break"])
    top = CodeTemplate("class A:\n    def f(self):\n        ${body}\n").substitute(body=middle)
    assert top == "class A:\n    def f(self):\n        while True:\n            n = 0\n            break\n"


def test_an_inline_multi_line_value_is_not_indented():
    """Only a hole alone on its line indents; inline, the text goes in as it is."""
    assert CodeTemplate("    x = $v\n").substitute(v="(1,\n2)") == "    x = (1,\n2)\n"


def test_a_tab_indented_block_keeps_the_tab():
    assert CodeTemplate("a:\n\t${b}\n").substitute(b=["x", "y"]) == "a:\n\tx\n\ty\n"


def test_comma_before_with_one_item():
    assert CodeTemplate("f(self${,rest})").substitute(rest=["other"]) == "f(self, other)"


def test_comma_before_and_after_in_one_template():
    t = CodeTemplate("f(${before,}x${,after})")
    assert t.substitute(before=["a", "b"], after=["c"]) == "f(a, b, x, c)"
    assert t.substitute(before=[], after=[]) == "f(x)"
    assert t.substitute(before=[], after=["c", "d"]) == "f(x, c, d)"


def test_comma_forms_with_a_value_that_is_not_a_list_always_add_the_comma():
    """As torchgen's CodeTemplate: only an empty *list* drops the comma."""
    assert CodeTemplate("f(x${,y})").substitute(y="z") == "f(x, z)"
    assert CodeTemplate("f(${y,}x)").substitute(y=3) == "f(3, x)"


def test_comma_forms_of_a_list_of_numbers_use_str():
    assert CodeTemplate("t = (0${,rest})").substitute(rest=[1, 2.5]) == "t = (0, 1, 2.5)"


def test_an_empty_block_between_two_lines_of_a_nested_template():
    inner = CodeTemplate("a\n${optional}\nb").substitute(optional=[])
    assert CodeTemplate("  ${x}\n").substitute(x=inner) == "  a\n  b\n"


def test_a_block_with_an_empty_string_value_gives_one_blank_line():
    assert CodeTemplate("a\n    ${x}\nb\n").substitute(x="") == "a\n\nb\n"
