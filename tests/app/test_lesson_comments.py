"""A lesson's script in another language: comments and docstrings swapped,
nothing else (app/lesson_text/comments.py)."""

from __future__ import annotations

from autogradviz.app.lesson_text.comments import comments, translate

SOURCE = '''x = "# not a comment"  # a comment
def f():
    """A docstring
    on two lines."""
    return "text"  # another
y = 1  # left alone
'''

TABLE = {"# a comment": "# 注释", '"""A docstring\n    on two lines."""': '"""文档字符串"""',
         "# another": "# 另一个", "# gone from the script": "# 不用"}


def test_comments_and_docstrings_are_found_by_the_tokenizer():
    assert [t for _, _, t in comments(SOURCE)] == [
        "# a comment", '"""A docstring\n    on two lines."""', "# another", "# left alone"]


def test_translate_swaps_only_what_the_table_has():
    assert translate(SOURCE, TABLE) == '''x = "# not a comment"  # 注释
def f():
    """文档字符串"""
    return "text"  # 另一个
y = 1  # left alone
'''


def test_nothing_to_translate_or_a_broken_script_comes_back_unchanged():
    assert translate(SOURCE, {}) == SOURCE
    broken = 'x = (1,  # open\n'
    assert comments(broken) == [] and translate(broken, {"# open": "# 开"}) == broken
