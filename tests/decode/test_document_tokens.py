"""Documents protect their spans with the placeholder tokens a model learns to copy (one scheme,
mt.data.tokenization.PLACEHOLDERS), and the Translator's protect step carries those tokens through
as they are: for a model with the tokens unchanged, for one without them through a name stand-in."""

from __future__ import annotations

from documents_support import Upper
from mt.data.tokenization import PLACEHOLDERS as P
from mt.decode.documents import html
from mt.decode.documents.align import PositionAligner
from mt.decode.documents.document import translate_document
from mt.decode.placeholders import protect, protect_spans, restore, restore_spans


def never(word: str, *, initial: bool) -> bool:
    return False


def test_a_documents_spans_become_placeholder_tokens_in_order() -> None:
    (unit,) = html.parse("<p>Open {path} at https://example.com/a, <br> now.</p>", name="p").units
    assert unit.text == f"Open {P[0]} at {P[1]}, {P[2]} now."
    assert unit.kept == ((P[0], "{path}"), (P[1], "https://example.com/a"), (P[2], "<br>"))


def test_a_token_the_source_already_holds_is_not_given_again() -> None:
    (unit,) = html.parse(f"<p>Say {P[0]} and {{name}}.</p>", name="p").units
    assert unit.kept == ((P[1], "{name}"),)


def test_past_sixteen_spans_the_tokens_go_on_and_every_span_comes_back() -> None:
    source = "<p>" + " ".join(f"w{n} {{x{n}}}" for n in range(20)) + "</p>"
    (unit,) = html.parse(source, name="p").units
    assert [token for token, _ in unit.kept][15:17] == [P[15], "｟17｠"]
    out = translate_document(html.parse(source, name="p"), Upper(), PositionAligner())
    assert all(f"{{x{n}}}" in out for n in range(20))


def test_a_documents_tokens_are_numbered_again_with_the_sentences_spans() -> None:
    """A paragraph's fifth span is the sentence's first: the model sees ｟1｠ first, as in
    training, and the translation gets the document's token back."""
    text, slots = protect_spans(f"Open www.example.com at {P[4]} now.", never)
    assert text == f"Open {P[0]} at {P[1]} now."
    assert dict(slots) == {P[0]: "www.example.com", P[1]: P[4]}
    kept = restore_spans(f"Abre {P[0]} en {P[1]} ahora.", slots)
    assert (kept.text, kept.lost) == (f"Abre www.example.com en {P[4]} ahora.", 0)
    lost = restore_spans(f"Abre {P[0]} ahora.", slots)  # put back at the end, like any span
    assert (lost.text, lost.lost) == (f"Abre www.example.com ahora {P[4]}.", 1)


def test_fixed_tokens_pass_through_protect_spans_as_themselves() -> None:
    """A glossary's tokens: its own step puts them back (or finds them lost) before this one."""
    text, slots = protect_spans(f"Open www.example.com at {P[0]} now.", never, fixed=(P[0],))
    assert text == f"Open {P[1]} at {P[0]} now."
    assert slots == ((P[1], "www.example.com"),)
    kept = restore_spans(f"Abre {P[1]} en el museo.", slots)
    assert (kept.text, kept.lost) == ("Abre www.example.com en el museo.", 0)


def test_past_sixteen_spans_in_all_a_documents_tokens_pass_as_themselves() -> None:
    text = " ".join(f"n{n} {P[n]}" for n in range(16)) + " at www.example.com"
    masked, slots = protect_spans(text, never)
    assert masked == text and restore_spans(masked, slots).text == text
    without = text.replace(f" {P[3]}", "")
    lost = restore_spans(without, slots)  # put back at the end, like any span
    assert (lost.text, lost.lost) == (without + f" {P[3]}", 1)


def test_a_model_without_tokens_gets_a_name_stand_in_for_each() -> None:
    text, slots = protect(f"Open {P[0]} and {P[1]} now.", never)
    assert text == "Open Tom and Mary now."
    assert restore("Abre Tom y Mary ahora.", slots) == f"Abre {P[0]} y {P[1]} ahora."
