"""Every note code the engine registers (engine/trace/notes.py) is said by the
app in the UI language from its code: in English by the app's own text, and
in Simplified Chinese from the shipped translation - never by falling back to
the worker's English. Internal notes (recording failures) are not shown.

The parameters are each code's registered examples, rendered the way the
worker renders them, so a code registered without an app text fails here."""

from __future__ import annotations

import re

from autogradviz.engine.trace import notes
from autogradviz.engine.trace.model import NoteRecord, Trace

CJK = re.compile(r"[\u4e00-\u9fff]")
FALLBACK = "(the worker's English: the app does not know this code)"


def _shown_codes() -> list[notes.NoteKind]:
    kinds = [k for k in notes.builtin() if not k.internal]
    assert len(kinds) >= 10, [k.code for k in kinds]  # (the registry is read, not empty)
    return kinds


def _record(kind: notes.NoteKind) -> NoteRecord:
    return NoteRecord(kind.code, dict(kind.params), notes.render(kind.code, kind.params))


def test_every_registered_code_has_its_app_text_and_chinese_translation(main_window):
    runs = main_window.runs
    # (the check can fail: a code the app has no text for comes back as the fallback)
    assert runs.note_text(NoteRecord("a_code_nobody_translates", {}, "x"), FALLBACK) == FALLBACK
    english = {}
    for kind in _shown_codes():
        text = runs.note_text(_record(kind), FALLBACK)
        assert text != FALLBACK, f"no app text for note code {kind.code!r}"
        assert "{" not in text and not CJK.search(text), (kind.code, text)
        english[kind.code] = text
    try:
        main_window.set_language("zh_CN")
        for kind in _shown_codes():
            text = runs.note_text(_record(kind), FALLBACK)
            assert text != FALLBACK and text != english[kind.code], f"{kind.code!r} is not translated"
            assert CJK.search(text) and "{" not in text, (kind.code, text)
    finally:
        main_window.set_language("en")


def test_a_traces_note_records_are_shown_internal_ones_left_out(main_window):
    trace = Trace()
    trace.add_note("runs_truncated", calls=1234, recorded=50)
    trace.add_note("internal_error", stage="probe", error="RuntimeError: x")
    trace.add_note("checkpoint_not_read", nodes=2)
    assert [r.code for r in trace.note_records] == ["runs_truncated", "internal_error", "checkpoint_not_read"]
    assert main_window.runs.note_texts(trace) == [trace.note_records[0].text, trace.note_records[2].text]
    assert trace.note_records[0].text == "1,234 backward/grad calls; only the first 50 were recorded in full."
