"""TMX 1.4 and XLIFF 1.2 / 2.x files as English-Spanish segments.

Parsed through defusedxml, which refuses entity declarations and external references (a memory
from anywhere could otherwise exhaust memory or read local files); a refusal is an MtError. Sides
go by primary language subtag (`en_GB`, `es-419`). Inline markup is kept as the original text it
stands for (native code in `<bpt>`/`<ph>`..., or XLIFF 2's `<originalData>`); elements without
native code give their text only.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser

from mt.data.readers.translator_entries import FileEntries, Segment, primary_language
from mt.errors import MtError

NO_ENGLISH = "no English side"
NO_SPANISH = "no Spanish side"
UNTRANSLATED = "untranslated"
NEEDS_REVIEW = "needs review"
NOT_FOR_TRANSLATION = "not for translation"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_LINE = "{urn:mt}line"  # where each element starts, added while parsing
_UNFINISHED = ("new", "needs-translation")  # XLIFF 1.2 target states without a translation


class _LineNumbers(TreeBuilder):
    """A tree builder that notes the line of every element (ElementTree keeps none)."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: DefusedXMLParser | None = None

    def start(self, tag: str, attrs: dict[str, str]) -> Element:  # type: ignore[override]
        assert self.parser is not None
        line = str(self.parser.parser.CurrentLineNumber)
        return super().start(tag, {**attrs, _LINE: line})


def parse_xml(path: Path, data: bytes) -> Element:
    """The document's root; entities, external references and bad XML are one MtError each."""
    builder = _LineNumbers()
    parser = DefusedXMLParser(target=builder)
    builder.parser = parser
    try:
        parser.feed(data)
        return parser.close()
    except EntitiesForbidden as error:
        raise MtError(
            f"{path}: refused: the file declares the XML entity {error.name!r}; mt does not "
            "expand entities (nested ones can exhaust memory)"
        ) from None
    except ExternalReferenceForbidden as error:
        raise MtError(
            f"{path}: refused: the file refers to the external resource "
            f"{error.sysid or error.pubid!r}; mt does not load external entities"
        ) from None
    except DefusedXmlException as error:
        raise MtError(f"{path}: refused: {error}") from None
    except ParseError as error:
        line = error.position[0]
        reason = str(error).rsplit(": line", 1)[0]
        raise MtError(f"{path} line {line}: not well-formed XML ({reason})") from None


def read_tmx(path: Path, data: bytes) -> FileEntries:
    """Every `<tu>` with an English and a Spanish `<tuv>` is a segment."""
    root = parse_xml(path, data)
    _check_root(path, root, "tmx")
    body = _child(root, "body")
    if body is None:
        raise MtError(f"{path}: TMX file without <body>")
    result = FileEntries(path=path)
    languages: set[str] = set()
    for number, unit in enumerate(_children(body, "tu"), start=1):
        result.entries += 1
        sides = _tmx_sides(path, unit, number)
        languages.update(sides)
        if "en" not in sides:
            result.skipped[NO_ENGLISH] += 1
        elif "es" not in sides:
            result.skipped[NO_SPANISH] += 1
        else:
            result.segments.append(Segment(_line(unit), sides["en"], sides["es"]))
    if result.entries and not {"en", "es"} <= languages:
        found = ", ".join(sorted(languages)) or "none"
        raise MtError(f"{path}: no English-Spanish translation unit (languages found: {found})")
    return result


def _tmx_sides(path: Path, unit: Element, number: int) -> dict[str, str]:
    """Language -> text of one `<tu>`; the first variant of a language counts."""
    sides: dict[str, str] = {}
    for variant in _children(unit, "tuv"):
        where = f"{path} line {_line(variant)} (tu {number})"
        language = primary_language(variant.get(XML_LANG) or variant.get("lang"))
        if not language:
            raise MtError(f"{where}: <tuv> without xml:lang")
        segment = _child(variant, "seg")
        if segment is None:
            raise MtError(f"{where}: <tuv xml:lang={language!r}> without <seg>")
        sides.setdefault(language, "".join(segment.itertext()))
    return sides


def read_xliff(path: Path, data: bytes) -> FileEntries:
    """XLIFF 1.2 trans-units or XLIFF 2.x segments with a target are segments."""
    root = parse_xml(path, data)
    _check_root(path, root, "xliff")
    version = root.get("version", "")
    result = FileEntries(path=path)
    if version.startswith("1."):
        for file in _children(root, "file"):
            english_first = _direction(path, file, "source-language", "target-language")
            for unit in (e for e in file.iter() if _local(e.tag) == "trans-unit"):
                _add_unit_1(path, unit, english_first, result)
    elif version.startswith("2."):
        english_first = _direction(path, root, "srcLang", "trgLang")
        for unit in (e for e in root.iter() if _local(e.tag) == "unit"):
            _add_unit_2(path, unit, english_first, result)
    else:
        raise MtError(f"{path}: XLIFF version {version!r}; mt reads XLIFF 1.2 and 2.x")
    return result


def _add_unit_1(path: Path, unit: Element, english_first: bool, result: FileEntries) -> None:
    result.entries += 1
    where = f"{path} line {_line(unit)} (trans-unit {unit.get('id', '?')})"
    source, target = _child(unit, "source"), _child(unit, "target")
    if source is None:
        raise MtError(f"{where}: <trans-unit> without <source>")
    state = target.get("state", "") if target is not None else ""
    if unit.get("translate") == "no":
        result.skipped[NOT_FOR_TRANSLATION] += 1
    elif target is None or not "".join(target.itertext()).strip() or state in _UNFINISHED:
        result.skipped[UNTRANSLATED] += 1
    elif state.startswith("needs-"):
        result.skipped[NEEDS_REVIEW] += 1
    else:
        texts = ("".join(source.itertext()), "".join(target.itertext()))
        en, es = texts if english_first else texts[::-1]
        result.segments.append(Segment(_line(unit), en, es))


def _add_unit_2(path: Path, unit: Element, english_first: bool, result: FileEntries) -> None:
    original = _child(unit, "originalData")
    data = {}
    if original is not None:
        data = {
            item.get("id", ""): "".join(item.itertext()) for item in _children(original, "data")
        }
    for number, segment in enumerate(_children(unit, "segment"), start=1):
        result.entries += 1
        where = f"{path} line {_line(segment)} (unit {unit.get('id', '?')} segment {number})"
        source, target = _child(segment, "source"), _child(segment, "target")
        if source is None:
            raise MtError(f"{where}: <segment> without <source>")
        if target is None or not _text_2(target, data).strip():
            result.skipped[UNTRANSLATED] += 1
            continue
        texts = (_text_2(source, data), _text_2(target, data))
        en, es = texts if english_first else texts[::-1]
        result.segments.append(Segment(_line(segment), en, es))


def _text_2(element: Element, data: dict[str, str]) -> str:
    """The text of an XLIFF 2 `<source>`/`<target>` with its inline codes' original data."""
    parts = [element.text or ""]
    for child in element:
        name = _local(child.tag)
        if name in ("ph", "sc", "ec"):
            parts.append(data.get(child.get("dataRef", ""), ""))
        elif name == "pc":
            start, end = child.get("dataRefStart", ""), child.get("dataRefEnd", "")
            parts += [data.get(start, ""), _text_2(child, data), data.get(end, "")]
        elif name == "cp":
            parts.append(chr(int(child.get("hex", "20"), 16)))
        else:  # annotations (<mrk>, <sm/>, <em/>) mark text, they are not text
            parts.append(_text_2(child, data))
        parts.append(child.tail or "")
    return "".join(parts)


def _direction(path: Path, element: Element, source_key: str, target_key: str) -> bool:
    """True when the source is English and the target Spanish, False the other way round."""
    source = primary_language(element.get(source_key))
    target = primary_language(element.get(target_key)) or ("es" if source == "en" else "")
    if (source, target) == ("en", "es"):
        return True
    if (source, target) == ("es", "en"):
        return False
    raise MtError(
        f"{path} line {_line(element)}: {source_key}={element.get(source_key)!r} "
        f"{target_key}={element.get(target_key)!r}; mt reads English-Spanish files"
    )


def _check_root(path: Path, root: Element, expected: str) -> None:
    if _local(root.tag) != expected:
        raise MtError(
            f"{path}: not a {expected.upper()} file (its root element is <{_local(root.tag)}>)"
        )


def _local(tag: str) -> str:
    """The tag without its namespace: XLIFF 1.2 and 2.x differ only there."""
    return tag.rsplit("}", 1)[-1]


def _children(element: Element, name: str) -> Iterator[Element]:
    return (child for child in element if _local(child.tag) == name)


def _child(element: Element, name: str) -> Element | None:
    return next(_children(element, name), None)


def _line(element: Element) -> int:
    return int(element.get(_LINE, "0"))
