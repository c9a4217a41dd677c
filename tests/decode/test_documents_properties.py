"""Any text at all, in any format, with any translator: no traceback, nothing lost.

Random documents from pieces of markup, text, placeholders and line breaks go through every
parser; a parser either refuses with one MtError or the document comes back with every protected
span and every tag, from translators that copy, upper-case, reverse or return nothing.
"""

from __future__ import annotations

import collections
import re

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from documents_support import Done, Identity, Reverse, Upper, html_tags
from mt.decode.documents import html, markdown, po, subtitles
from mt.decode.documents.align import PositionAligner
from mt.decode.documents.document import translate_document
from mt.errors import MtError

PIECES = [
    "<", ">", "<b>", "</b>", "<i>", "</i>", "&", "&amp;", "&eacute;", "<!--", "-->", "word",
    "Ilse", " ", "\n", "\r\n", "<p>", "</p>", "<script>", "</script>", "<pre>", "</pre>", "'",
    '"', "<a href='x' title=\"T t\">", "</a>", '<img alt="a cat">', "<br>", "<code>", "</code>",
    "%s", "{0}", "http://x.y/z", "*", "**", "_", "`", "[", "](u)", "#", "> ", "- ", "|", "\\",
    "<kbd>", "</kbd>", "｟1｠", "\t", "1", "&#", "00:00:01,000 --> 00:00:02,000",
    "00:01.000 --> 00:02.000", "WEBVTT", 'msgid "a %s"', 'msgstr ""', "#, python-format", "\n\n",
]  # fmt: skip
PARSERS = (html.parse, markdown.parse, subtitles.parse_srt, subtitles.parse_vtt, po.parse)


class Nothing:
    def translate(self, lines):
        return (Done("") for _ in lines)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=30).map("".join))
def test_every_parser_refuses_clearly_or_keeps_every_protected_span(text: str) -> None:
    for parse in PARSERS:
        try:
            document = parse(text, name="random")
        except MtError as error:
            assert str(error).startswith("random") and "\n" not in str(error)
            continue
        for translator in (Identity(), Upper(), Reverse(), Nothing()):
            out = translate_document(document, translator, PositionAligner())
            for unit in document.units:
                for _, original in unit.kept:
                    if "\x00" not in original:  # an alt text inside is translated
                        assert original in out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=30).map("".join))
@example('&#<img alt="a cat">')  # a bare "&#" once hid every tag after it (CI-style run)
def test_well_formed_html_keeps_its_tags_well_formed(text: str) -> None:
    document = html.parse(text, name="random")
    tag = re.compile(r"<[a-zA-Z/][^<>]*>")
    masked = re.compile(r'(alt|title)="[^"]*"')
    before, errors_before = html_tags(text)
    # A stray "<" or a bad nesting: counting tags with a regex means nothing then.
    assume(not errors_before and text.count("<") == len(tag.findall(text)))
    for translator in (Upper(), Reverse(), Nothing()):
        out = translate_document(document, translator, PositionAligner())
        counted = collections.Counter(masked.sub(r"\1", t) for t in tag.findall(out))
        assert counted == collections.Counter(masked.sub(r"\1", t) for t in tag.findall(text))
        assert html_tags(out) == (before, [])
