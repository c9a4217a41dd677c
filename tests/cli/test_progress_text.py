"""The document progress bar passes translations through unchanged and reports sentences."""

from __future__ import annotations

import io

from rich.console import Console

from mt.cli.progress import text_size, with_progress
from mt.decode.results import Translation


def test_translations_pass_through_and_the_bar_counts_sentences(tmp_path) -> None:
    document = tmp_path / "doc.txt"
    document.write_text("  Hi. Bye.\n\nYes.\n", encoding="utf-8")
    assert text_size(document) == len("Hi. Bye.") + len("Yes.")
    translations = [
        Translation("  Hi. Bye.", (("Hola. Adiós.", -1.0),), pieces=2),
        Translation("", (), pieces=0),
        Translation("Yes.", (("Sí.", -0.5),), pieces=1),
    ]
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    assert list(with_progress(translations, total=12, console=console)) == translations
    assert "3 sentences" in screen.getvalue() and "sentences/s" in screen.getvalue()
