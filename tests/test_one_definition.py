"""One definition each of the URL pattern, the word patterns, final punctuation and the stand-ins.

A second copy drifts from the first (documents' URL and brace patterns once disagreed with the span
detector on tldr's {{placeholders}}), so every module of src/mt is read and a second definition
fails here, naming the file. The definitions live in mt.text.spans (URLs and the other protected
spans), mt.text.words (words), mt.text.casual (final punctuation), mt.decode.glossary (name
stand-ins) and mt.data.tokenization (placeholder tokens).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from mt.data.tokenization import PLACEHOLDERS
from mt.decode.documents import html
from mt.text import words

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mt"
WORD_PATTERNS = {
    words.WORD.pattern,
    words.LETTERS.pattern,
    words.ANY_WORD.pattern,
    r"[A-Za-z]+(?:'[A-Za-z]+)*",  # the apostrophe-' spelling word statistics once had
}


def modules() -> dict[str, ast.Module]:
    return {
        path.relative_to(PACKAGE).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def strings(tree: ast.Module) -> list[str]:
    """Every string constant, docstrings aside (they may quote a pattern)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def assigned(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """(name, value) of every assignment at any depth."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            found += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            found.append((node.target.id, node.value))
    return found


def where(test) -> list[str]:
    return [name for name, tree in modules().items() if test(tree)]


def test_one_url_pattern() -> None:
    assert where(lambda tree: any("https?" in s for s in strings(tree))) == ["text/spans.py"]


def test_one_definition_of_each_word_pattern() -> None:
    assert where(lambda tree: any(s in WORD_PATTERNS for s in strings(tree))) == ["text/words.py"]
    assert where(lambda tree: any(_word_pattern(n, v) for n, v in assigned(tree))) == [
        "text/words.py"
    ]


def _word_pattern(name: str, value: ast.expr) -> bool:
    """A pattern named for a word (WORD, _WORD, ANY_WORD, _PLAIN_WORD), not a count (SHORT_WORD)."""
    counted = isinstance(value, ast.Constant) and isinstance(value.value, int)
    return re.fullmatch(r"_?(?:[A-Z]+_)?WORD", name) is not None and not counted


def test_one_final_punctuation() -> None:
    named = where(lambda tree: any(name == "FINAL_PUNCTUATION" for name, _ in assigned(tree)))
    assert named == ["text/casual.py"]


def test_one_tuple_of_name_stand_ins() -> None:
    def defines(tree: ast.Module) -> bool:
        return any(
            isinstance(value, ast.Tuple | ast.List)
            and any(isinstance(e, ast.Constant) and e.value == "Tom" for e in value.elts)
            for _, value in assigned(tree)
        )

    assert where(defines) == ["decode/glossary.py"]


def test_placeholder_tokens_are_written_in_one_module() -> None:
    """The ｟n｠ tokens are the one stand-in token scheme: documents protect their spans with them
    too (mt.decode.documents.units), where they once had their own "Qzaa" tokens."""
    assert where(lambda tree: any("｟" in s for s in strings(tree))) == ["data/tokenization.py"]
    assert where(lambda tree: any("Qz" in s for s in strings(tree))) == []


def test_no_second_token_scheme_is_defined() -> None:
    """A name for tokens (TOKEN, _TOKENS, PLACEHOLDER) outside mt.data.tokenization is built from
    its PLACEHOLDERS or PLACEHOLDER, not a scheme of its own (units.py's TOKEN once was)."""

    def own_scheme(tree: ast.Module) -> bool:
        return any(
            re.fullmatch(r"_?(?:[A-Z]+_)*(?:TOKEN|PLACEHOLDER)S?", name) is not None
            and not {"PLACEHOLDERS", "PLACEHOLDER"} & _names(value)
            for name, value in assigned(tree)
        )

    assert [name for name in where(own_scheme) if name != "data/tokenization.py"] == []


def _names(value: ast.expr) -> set[str]:
    return {node.id for node in ast.walk(value) if isinstance(node, ast.Name)}


def test_a_documents_spans_take_the_placeholder_tokens() -> None:
    (unit,) = html.parse("<p>Open {path} at https://example.com/a now.</p>", name="p").units
    assert [token for token, _ in unit.kept] == list(PLACEHOLDERS[:2])
