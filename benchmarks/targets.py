"""Speed targets, checked: every benchmark reports each target through `Targets`
and exits with `Targets.exit_code()`, so `make bench` fails when one is missed
(a benchmark that only prints "SLOWER THAN TARGET" and exits 0 hides a regression)."""

from __future__ import annotations

import sys


class Targets:
    """Collects pass/fail per named target; prints a verdict line for each."""

    def __init__(self) -> None:
        self.missed: list[str] = []

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        verdict = "OK" if ok else "MISSED"
        print(f"target {name}: {verdict}" + (f" ({detail})" if detail else ""), flush=True)
        if not ok:
            self.missed.append(name)
        return ok

    def exit_code(self) -> int:
        """0 when every target was met, else 1 (with the missed names on stderr)."""
        if self.missed:
            print(f"targets missed: {', '.join(self.missed)}", file=sys.stderr)
            return 1
        return 0
