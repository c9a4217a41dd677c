"""SubRip and WebVTT: cue text translated as one unit and broken again; numbers, timecodes,
settings and blocks copied byte for byte; a bad timecode named by its line."""

from __future__ import annotations

import re

import pytest

from documents_support import Done, Identity, SameWordAligner, Upper
from mt.decode.documents import subtitles
from mt.decode.documents.align import PositionAligner
from mt.decode.documents.document import translate_document
from mt.errors import MtError

SRT = (
    "1\n00:00:01,000 --> 00:00:02,500\nWhere is the <i>station</i>,\nIlse?\n\n"
    "2\r\n00:00:03,000 --> 00:00:04,000\r\n{\\an8}Bruno likes bread.\r\n\r\n\r\n"
    "3\n00:00:05,000 --> 00:00:06,000 X1:10 X2:20\n♪ ♪\n\n"
    "4\n00:00:07,000 --> 00:01:00,000\nOne two three four five six\nseven eight\nnine ten\n"
)
VTT = (
    "WEBVTT - a test\n\nNOTE a note\nthat stays\n\nSTYLE\n::cue { color: red }\n\n"
    "intro\n00:01.000 --> 00:02.000 align:left\n<v Bob>Where is the <c.yellow>station</c>?\n"
    "I ask &amp; wait.\n\n00:02.000 --> 01:00:03.000\nBye <00:02.500>now.\n"
)
TIMING = re.compile(r"^.*-->.*$", re.MULTILINE)


def test_srt_identity_translation_gives_the_file_back_byte_for_byte() -> None:
    document = subtitles.parse_srt(SRT, name="a.srt")
    assert translate_document(document, Identity(), SameWordAligner()) == SRT


def test_vtt_identity_translation_gives_the_file_back_byte_for_byte() -> None:
    document = subtitles.parse_vtt(VTT, name="a.vtt")
    assert translate_document(document, Identity(), SameWordAligner()) == VTT


def test_srt_cues_are_translated_whole_and_broken_into_as_many_lines() -> None:
    translator = Upper()
    out = translate_document(subtitles.parse_srt(SRT, name="a.srt"), translator, PositionAligner())
    assert translator.calls == [
        [
            "Where is the station, Ilse?",
            "｟1｠ Bruno likes bread.",
            "One two three four five six seven eight nine ten",
        ]
    ]
    assert TIMING.findall(out) == TIMING.findall(SRT)
    assert out.startswith(
        "1\n00:00:01,000 --> 00:00:02,500\nWHERE IS THE <i>STATION</i>,\nILSE?\n\n2\r\n"
    )
    assert "{\\an8}" in out and "♪ ♪" in out
    last = out.split("00:01:00,000\n")[1]
    assert last.count("\n") == 3 and last.replace("\n", " ").strip() == (
        "ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN"
    )


def test_vtt_blocks_settings_and_timestamps_are_kept() -> None:
    out = translate_document(subtitles.parse_vtt(VTT, name="a.vtt"), Upper(), PositionAligner())
    assert out == (
        "WEBVTT - a test\n\nNOTE a note\nthat stays\n\nSTYLE\n::cue { color: red }\n\n"
        "intro\n00:01.000 --> 00:02.000 align:left\n<v Bob>WHERE IS THE <c.yellow>STATION</c>?\n"
        "I ASK &amp; WAIT.\n\n00:02.000 --> 01:00:03.000\nBYE <00:02.500>NOW.\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1\n00:00:01,000 --> 00:00:02,000\nHi\n\n2\n00:00:0x,000 --> 00:00:04,000\nBye\n",
         r"^b\.srt:6: bad timecode line '00:00:0x,000 --> 00:00:04,000'$"),
        ("1\nHello\n", r"^b\.srt:2: bad timecode line 'Hello'$"),
        ("x\n00:00:01,000 --> 00:00:02,000\nHi\n", r"^b\.srt:1: expected a cue number"),
        ("1\n00:00:01.000 -> 00:00:02,000\nHi\n", r"^b\.srt:2: bad timecode"),
    ],
)  # fmt: skip
def test_a_bad_srt_block_names_its_line(text: str, message: str) -> None:
    with pytest.raises(MtError, match=message):
        subtitles.parse_srt(text, name="b.srt")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("WEBVTT\n\n00:01.000 --> 00:0x.000\nHi\n", r"^b\.vtt:3: bad timecode"),
        ("WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n\nid\n1:2 --> 3:4\nx\n", r"^b\.vtt:7: bad"),
        ("Hello\n", r"^b\.vtt:1: a WebVTT file starts with a WEBVTT line$"),
    ],
)
def test_a_bad_vtt_block_names_its_line(text: str, message: str) -> None:
    with pytest.raises(MtError, match=message):
        subtitles.parse_vtt(text, name="b.vtt")


SPREAD = (
    "1\n00:00:01,000 --> 00:00:02,000\nWhere is the\n\n"
    "2\n00:00:02,000 --> 00:00:03,000\nold station,\n\n"
    "3\n00:00:03,000 --> 00:00:04,000\nIlse?\n\n"
    "4\n00:00:05,000 --> 00:00:06,000\nI like <i>bread</i>\n\n"
    "5\n00:00:06,000 --> 00:00:07,000\nand soup.\n"
)


def cue_texts(text: str) -> list[str]:
    return [block.split("\n", 2)[2].strip() for block in text.strip().split("\n\n")]


def test_a_sentence_over_cues_is_translated_once_and_spread_over_them() -> None:
    translator = Upper()
    out = translate_document(
        subtitles.parse_srt(SPREAD, name="a.srt"), translator, PositionAligner()
    )
    assert translator.calls == [["Where is the old station, Ilse?", "I like bread", "and soup."]]
    assert TIMING.findall(out) == TIMING.findall(SPREAD)
    assert cue_texts(out) == [
        "WHERE IS THE",
        "OLD STATION,",
        "ILSE?",
        "I LIKE <i>BREAD</i>",
        "AND SOUP.",
    ]


def test_a_short_translation_still_keeps_every_cue() -> None:
    class OneWord:
        def translate(self, lines):
            return (Done("Hola") for _ in lines)

    out = translate_document(
        subtitles.parse_srt(SPREAD, name="a.srt"), OneWord(), PositionAligner()
    )
    assert TIMING.findall(out) == TIMING.findall(SPREAD)
    # Too few words for three cues: the last two are left empty rather than lost.
    numbers = re.findall(r"^(\d+)\n\S.*-->", out, re.MULTILINE)
    assert numbers == ["1", "2", "3", "4", "5"]
    assert out.startswith("1\n00:00:01,000 --> 00:00:02,000\nHola\n\n2\n")
    subtitles.parse_srt(out, name="out.srt")  # still a valid file
