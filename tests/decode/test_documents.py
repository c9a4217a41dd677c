"""Documents with their markup intact: units, placement of tags and protected spans, and the
HTML and Markdown formats, with scripted translators whose output is known word for word."""

from __future__ import annotations

import re

import pytest

from documents_support import (
    Done,
    DropPlaceholders,
    Identity,
    Reverse,
    ReverseAligner,
    SameWordAligner,
    Upper,
    html_tags,
    text_nodes,
)
from mt.decode.documents import html, markdown
from mt.decode.documents.align import PositionAligner, by_position, words
from mt.decode.documents.document import translate_document
from mt.decode.documents.place import place
from mt.decode.documents.units import Tag, Unit, UnitBuilder

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Where is the station?</title>
<style>p { color: red; } /* the style */</style>
<script>if (a < b && c) { alert("hello there"); }</script></head>
<body class="main">
<!-- a comment stays -->
<h1 id="top">Where is the station?</h1>
<p>I <b>do not</b> like <a href="/coffee" class="link">coffee</a>.</p>
<p>Press {button} to save the file at https://example.com/a.txt now.</p>
<p>Type <code>ls -l</code> and see <img src="cat.png" alt="A red cat"> &amp; more.</p>
<pre>keep <b>this</b> as it is</pre>
<ul><li>One <span class="emph">two <i>three</i></span> four</li></ul>
</body></html>
"""


def translate_html(text: str, translator, aligner=None) -> str:
    return translate_document(html.parse(text, name="page.html"), translator, aligner)


def translate_md(text: str, translator, aligner=None) -> str:
    return translate_document(markdown.parse(text, name="page.md"), translator, aligner)


# ----- HTML ---------------------------------------------------------------------------------


def test_html_words_are_translated_and_everything_else_is_copied() -> None:
    out = translate_html(PAGE, Upper(), PositionAligner())
    expected = (
        "<title>WHERE IS THE STATION?</title>",
        "<style>p { color: red; } /* the style */</style>",
        '<script>if (a < b && c) { alert("hello there"); }</script>',
        '<h1 id="top">WHERE IS THE STATION?</h1>',
        '<p>I <b>DO NOT</b> LIKE <a href="/coffee" class="link">COFFEE</a>.</p>',
        "<p>PRESS {button} TO SAVE THE FILE AT https://example.com/a.txt NOW.</p>",
        '<code>ls -l</code> AND SEE <img src="cat.png" alt="A RED CAT"> &amp; MORE.',
        "<pre>keep <b>this</b> as it is</pre>",
        '<li>ONE <span class="emph">TWO <i>THREE</i></span> FOUR</li>',
        "<!-- a comment stays -->",
        '<body class="main">',
    )
    assert [part for part in expected if part not in out] == []


def test_html_tags_follow_the_words_they_wrapped() -> None:
    out = translate_html(
        '<p>I <b>do not</b> like <a href="/c">coffee</a>.</p>', Reverse(), ReverseAligner()
    )
    assert out == '<p>. <a href="/c">coffee</a> like <b>not do</b> I</p>'


def test_html_output_has_the_same_tags_well_formed() -> None:
    for translator, aligner in ((Upper(), PositionAligner()), (Reverse(), PositionAligner())):
        out = translate_html(PAGE, translator, aligner)
        tags, errors = html_tags(out)
        assert tags == html_tags(PAGE)[0]
        assert errors == []


def test_a_lost_placeholder_comes_back_once_next_to_its_aligned_word() -> None:
    out = translate_html(
        "<p>Press {button} to save the file at https://example.com/a.txt now.</p>",
        DropPlaceholders(),
        SameWordAligner(),
    )
    assert out.count("{button}") == 1 and out.count("https://example.com/a.txt") == 1
    assert out.startswith("<p>PRESS {button} TO SAVE")
    assert "AT https://example.com/a.txt NOW" in out


def test_all_units_of_a_document_go_to_the_translator_in_one_call() -> None:
    translator = Upper()
    translate_html(PAGE, translator, PositionAligner())
    assert len(translator.calls) == 1 and len(translator.calls[0]) == 7


def test_broken_html_is_read_as_a_browser_would_and_never_fails() -> None:
    broken = "<p>Open <b>bold <i>both</b> and</p> <div>stray </span> end <a href='x'>link"
    out = translate_html(broken, Upper(), PositionAligner())
    assert out == "<p>OPEN <b>BOLD <i>BOTH</b> AND</p> <div>STRAY </span> END <a href='x'>LINK"


@pytest.mark.parametrize("text", ["", "   ", "\n", "<br>", "&amp;", "<p></p>"])
def test_html_without_words_is_copied(text: str) -> None:
    translator = Upper()
    assert translate_html(text, translator, PositionAligner()) == text
    assert translator.calls == []  # no piece: the model is not asked


def test_entities_for_letters_are_translated_with_their_word_others_are_kept() -> None:
    out = translate_html("<p>Caf&eacute; &amp; cr&#232;me&nbsp;now</p>", Upper(), PositionAligner())
    assert out == "<p>CAFÉ &amp; CRÈME&nbsp;NOW</p>"


def test_translated_words_are_escaped_in_html() -> None:
    class Ampersand:
        def translate(self, lines):
            return Upper().translate(line.replace("and", "& <") for line in lines)

    out = translate_html('<p title="cats and dogs">cats and dogs</p>', Ampersand())
    assert out == '<p title="CATS &amp; &lt; DOGS">CATS &amp; &lt; DOGS</p>'


# ----- placing tags and placeholders --------------------------------------------------------


def test_a_child_tag_aligned_outside_its_parent_is_kept_inside_it() -> None:
    builder = UnitBuilder()
    builder.text("one ")
    builder.open("<b>", "b")
    builder.text("two ")
    builder.open("<i>", "i")
    builder.text("three")
    builder.close("</i>", "i")
    builder.close("</b>", "b")
    builder.text(" four")
    _, unit, _ = builder.finish()
    assert unit == Unit(
        "one two three four",
        tags=(Tag("<b>", "</b>", 4, 13, None), Tag("<i>", "</i>", 8, 13, 0)),
    )
    # "three" is aligned to the first target word, "two" to the last: <i> must stay in <b>.
    alignment = [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]]
    out = place(unit, "W X Y Z", alignment)
    tags, errors = html_tags(out)
    assert errors == [] and tags == ["b", "i"]
    assert out.count("W") == out.count("X") == out.count("Y") == out.count("Z") == 1


def test_a_tag_around_no_words_keeps_its_place() -> None:
    out = translate_html(
        '<p><a name="top"></a>Where is the station?</p>', Upper(), PositionAligner()
    )
    assert out == '<p><a name="top"></a>WHERE IS THE STATION?</p>'


def test_position_alignment_rows_are_distributions() -> None:
    matrix = by_position(5, 3)
    assert len(matrix) == 3 and all(abs(sum(row) - 1) < 1e-9 for row in matrix)
    assert [max(range(5), key=row.__getitem__) for row in matrix] == [0, 2, 4]


def test_words_split_punctuation_and_placeholders() -> None:
    text = "I'm here, ｟1｠｟2｠ now."
    assert [text[a:b] for a, b in words(text)] == ["I'm", "here", ",", "｟1｠", "｟2｠", "now", "."]


# ----- Markdown -----------------------------------------------------------------------------

PAGE_MD = """---
title: not translated
---
# Where is *the* station?

> Quote line one
> with **bold [a link](http://x.com "T")** and `code` &amp; \\* escaped.

- Item one\\
  continued ![an image](a.png)
- `cmd {{file}}`

| Name | Value |
|---|---|
| cell *x* | y |

```sh
ls -la  # never translated
```

Setext heading
===

<div>an html block stays</div>

See <https://a.example/b> and `x`.
"""


@pytest.mark.parametrize(("translate", "page"), [(translate_html, PAGE), (translate_md, PAGE_MD)])
def test_identity_translation_gives_the_page_back_byte_for_byte(translate, page: str) -> None:
    assert translate(page, Identity(), SameWordAligner()) == page


def test_markdown_words_are_translated_and_markup_code_and_front_matter_copied() -> None:
    out = translate_md(PAGE_MD, Upper(), PositionAligner())
    assert out == PAGE_MD.replace("# Where is *the* station?", "# WHERE IS *THE* STATION?").replace(
        "> Quote line one", "> QUOTE LINE ONE"
    ).replace(
        '> with **bold [a link](http://x.com "T")** and `code` &amp; \\* escaped.',
        '> WITH **BOLD [A LINK](http://x.com "T")** AND `code` &amp; \\* ESCAPED.',
    ).replace(
        "- Item one\\\n  continued ![an image]", "- ITEM ONE\\\n  CONTINUED ![AN IMAGE]"
    ).replace("| Name | Value |", "| NAME | VALUE |").replace(
        "| cell *x* | y |", "| CELL *X* | Y |"
    ).replace("Setext heading\n", "SETEXT HEADING\n").replace(
        "See <https://a.example/b> and", "SEE <https://a.example/b> AND"
    )


def test_markdown_links_and_emphasis_follow_their_words() -> None:
    out = translate_md("I *do not* like [coffee](/c).\n", Reverse(), ReverseAligner())
    assert out == ". [coffee](/c) like *not do* I\n"


def test_a_paragraph_over_lines_is_translated_whole_and_broken_again() -> None:
    text = "> one two three\n> four five six\n> seven eight nine\n"
    translator = Upper()
    out = translate_md(text, translator, PositionAligner())
    assert translator.calls == [["one two three four five six seven eight nine"]]
    assert out == "> ONE TWO THREE\n> FOUR FIVE SIX\n> SEVEN EIGHT NINE\n"


@pytest.mark.parametrize(
    "text", ["`only code`\n", "```\nfenced\n```\n", "    indented code\n", "<p>html</p>\n", "---\n"]
)
def test_markdown_without_words_to_translate_is_copied(text: str) -> None:
    translator = Upper()
    assert translate_md(text, translator, PositionAligner()) == text
    assert translator.calls == []  # no piece: the model is not asked


def test_siblings_aligned_to_one_word_take_free_words_not_empty_tags() -> None:
    # the unit UnitBuilder makes of "This is *very* **important**"
    very = Tag("*", "*", 8, 12, None)
    important = Tag("**", "**", 13, 22, None, space_outside=(True, False))
    unit = Unit("This is very important", tags=(very, important))
    # Every target word draws on "important": *very* must still wrap a word of its own.
    alignment = [[0, 0, 0, 1]] * 3
    assert place(unit, "A B C", alignment) == "*A* **B C**"


def test_every_text_node_is_translated_or_copied() -> None:
    """With Upper, no lower-case letter may be left in a text node outside code and raw
    elements, and the protected ones are exactly as they were."""
    translated_before, copied_before = text_nodes(PAGE)
    translated, copied = text_nodes(translate_html(PAGE, Upper(), PositionAligner()))
    assert copied == copied_before
    left = [
        text
        for text in translated
        if re.sub(r"https?://\S+|\{\w+\}", "", text).upper()
        != re.sub(r"https?://\S+|\{\w+\}", "", text)
    ]
    assert left == []
    assert len(translated) == len(translated_before)


def test_tags_inside_a_word_split_it_and_keep_their_own_words() -> None:
    source = (
        '<span class="switch"><span class="MAC">Command</span><span class="default">Ctrl'
        "</span></span>+Enter"
    )
    out = translate_html(source, Upper(), SameWordAligner())
    assert out == (
        '<span class="switch"><span class="MAC">COMMAND</span> <span class="default">CTRL'
        "</span></span>+ENTER"
    )


def test_quotes_in_text_stay_quotes_and_a_percent_word_is_no_placeholder() -> None:
    out = translate_html(
        '<p>Say "hi" to x_{i} and oper %union now.</p>', Upper(), PositionAligner()
    )
    assert out == '<p>SAY "HI" TO X_{i} AND OPER %UNION NOW.</p>'


def test_a_placeholder_after_an_apostrophe_or_underscore_is_a_word_of_its_own() -> None:
    text = "x'｟4｠ don't ｟1｠｟2｠ a_｟3｠"
    assert [text[a:b] for a, b in words(text)] == [
        "x", "'", "｟4｠", "don't", "｟1｠", "｟2｠", "a_", "｟3｠",
    ]  # fmt: skip


def test_a_space_the_source_put_inside_a_tag_stays_inside() -> None:
    source = '<p>Choose <span class="m">Insert Controls </span>icon and <b> go</b>.</p>'
    assert translate_html(source, Identity(), SameWordAligner()) == source
    out = translate_html(source, Upper(), PositionAligner())
    assert out == '<p>CHOOSE <span class="m">INSERT CONTROLS </span>ICON AND <b> GO</b>.</p>'


def test_inline_html_in_markdown_is_paired_and_code_like_elements_copied() -> None:
    text = "Press <kbd>Ctrl</kbd> to <b>save the</b> file<br>now.\n"
    assert translate_md(text, Identity(), SameWordAligner()) == text
    out = translate_md(text, Reverse(), ReverseAligner())
    assert out == ". now<br>file <b>the save</b> to <kbd>Ctrl</kbd> Press\n"


def test_an_empty_translation_still_gives_back_every_tag_and_protected_span() -> None:
    class Nothing:
        def translate(self, lines):
            return (Done("") for _ in lines)

    out = translate_html("<p>Press <b>Enter</b> at https://a.example now.</p>", Nothing())
    assert out == "<p><b>https://a.example</b></p>"  # well formed, nothing lost
    md = translate_md("> one two\n> three `x`\n", Nothing(), PositionAligner())
    assert md == "> `x`\n"
