"""Derivative rules: why each gradient has its value.

table.py (the rules, as data), expr.py (the expression tree and its Unicode
rendering), bind.py (a node's rule bound to the recorded names and numbers):
no torch, so the app shows rules from them. evaluate.py computes a bound rule
with torch, for the tests that prove the table against what torch recorded.
"""
