"""Every source of `make model`'s data, as ../shared/data's READMEs record it: addresses, pinned
versions, digests of downloads and of the files it gives (tree digests: mt.data.sources.digests),
licence and conversion. A source its README cannot rebuild byte for byte is `reproducible=False`
with the reason, rather than something else written under its name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mt.data.sources.corpora import tatoeba, xquad
from mt.data.sources.domains import news, news_files, python_docs, tldr
from mt.data.sources.libreoffice import libreoffice
from mt.data.sources.wiktionary import WIKTIONARY_FILES, wiktionary

Convert = Callable[[Sequence[Path], Path], None]
"""(the downloads in the registry's order, the root to write under) -> None."""

GITHUB_RAW = "https://raw.githubusercontent.com"
DEBIAN = "https://deb.debian.org/debian/pool/main/libr/libreoffice"
SNAPSHOT = "https://snapshot.debian.org/file"  # Debian's archive of every package, by SHA-1


@dataclass(frozen=True)
class Download:
    name: str  # the file's name in the downloads folder
    urls: tuple[str, ...]  # the next is tried when one answers 404 or 410
    sha256: str | None = None  # None: not recorded (GitHub makes its archives on request)


@dataclass(frozen=True)
class Output:
    path: str  # below the data root, as in ../shared/data
    sha256: str  # of the file, or the folder's tree digest


@dataclass(frozen=True)
class Source:
    name: str
    home: str  # where it comes from, for a person
    version: str
    licence: str
    outputs: tuple[Output, ...]
    downloads: tuple[Download, ...] = ()
    convert: Convert | None = None
    reproducible: bool = True
    why_not: str = ""  # when not reproducible: what the README leaves out


def _github(repo: str, commit: str, path: str, sha256: str | None = None) -> Download:
    return Download(path.rpartition("/")[2], (f"{GITHUB_RAW}/{repo}/{commit}/{path}",), sha256)


def _archive(repo: str, commit: str) -> Download:
    return Download(f"{commit}.tar.gz", (f"https://github.com/{repo}/archive/{commit}.tar.gz",))


def _deb(package: str, *, sha1: str, sha256: str) -> Download:
    name = f"{package}_{LIBREOFFICE_VERSION}_all.deb"
    return Download(name, (f"{DEBIAN}/{name}", f"{SNAPSHOT}/{sha1}"), sha256)


TATOEBA_COPY = "Hoangduc212001/hoang/629d3776103aa1e71a99b70141dd535deb88fffb/spa-eng.zip"
PYTHON_DOCS_COMMIT = "91f4ccc0baa8c7cbeb739e696c641388264caa30"
TLDR_COMMIT = "08e345f42639f67d99282813247ac670dc6e87cb"
NEWS_COMMIT = "ac0f19c0be3cb4e0d9450fcb2d7a9847c4bdd180"
LIBREOFFICE_VERSION = "7.4.7-1+deb12u14"  # Debian 12's 4:7.4.7-1+deb12u14
XQUAD_COMMIT = "60cac411649156efb6aab9dd4c9cde787a2c0345"
WIKTIONARY_COMMIT = "74c2c11f3398606ef334dd6d0d3ecb9555a44faf"
WIKTIONARY_SHA256 = {  # of the download and of the file placed: the conversion copies it
    "lexicon/en-es.wiktionary.txt": (
        "2abb73d05d79f61ed270e6dfc217e2dff733d3a777589093b5dc5b4bb7a5f55b"
    ),
    "lexicon/es-en.wiktionary.txt": (
        "aff7925284b3cae9fc1e87001608f0db319899c32f9868943c3c1b57715db085"
    ),
}

CORPUS = Source(
    name="tatoeba",
    home="http://www.manythings.org/anki/ (Tatoeba), the zip of the TensorFlow NMT tutorial",
    version="spa-eng.zip of 2018-05-13",
    licence="CC-BY 2.0 FR: credit tatoeba.org and www.manythings.org/anki",
    outputs=(
        Output("spa-eng.tsv", "6ec60e212f812ee3430f7568ea6f33b6fb080e32193c5952e8da0ee8ba45574c"),
    ),
    downloads=(
        Download(
            "spa-eng.zip",
            (
                f"{GITHUB_RAW}/{TATOEBA_COPY}",  # the copy whose digest data/README.md records
                "https://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip",
            ),
            "0c4fd7825d3d872488d38c157f784e035edab4f2ff0df25a2a208790ecb5b58f",
        ),
    ),
    convert=tatoeba,
)

DOMAINS = (
    Source(
        name="python-docs-es",
        home="https://github.com/python/python-docs-es (branch 3.12)",
        version=f"commit {PYTHON_DOCS_COMMIT}",
        licence="given for the PSF's use under CC0; the files 'under the same license as Python'",
        outputs=(
            Output(
                "domains/python-docs-es",
                "bf2116b1a29e3814816ba9c6a94eb4e6135f1cab97dcdb5e189b489019b9730d",
            ),
        ),
        downloads=(_archive("python/python-docs-es", PYTHON_DOCS_COMMIT),),
        convert=python_docs,
    ),
    Source(
        name="tldr",
        home="https://github.com/tldr-pages/tldr",
        version=f"commit {TLDR_COMMIT}",
        licence="CC-BY 4.0, the tldr-pages team and contributors",
        outputs=(
            Output(
                "domains/tldr", "eea4de42fa570cb0c7e1b650032a34a2a07745beed45c3be5bd1e7fa7ca1d1f7"
            ),
        ),
        downloads=(_archive("tldr-pages/tldr", TLDR_COMMIT),),
        convert=tldr,
    ),
    Source(
        name="news",
        home="https://github.com/Helsinki-NLP/OPUS-MT-testsets (WMT news test sets)",
        version=f"commit {NEWS_COMMIT}",
        licence="none stated: WMT shared-task test sets, for research and evaluation",
        outputs=(
            Output(
                "domains/news/news-dev.en",
                "289c1e9718cc06bff111dda2faa2007314d5aca6da48ca09556adfe3623dea3b",
            ),
            Output(
                "domains/news/news-dev.es",
                "5c534d42f001567ae73cd2b63df2c11521184d3bf01b88e36d0587851cb27c33",
            ),
        ),
        downloads=tuple(
            _github("Helsinki-NLP/OPUS-MT-testsets", NEWS_COMMIT, f"testsets/eng-spa/{name}")
            for name in news_files()
        ),
        convert=news,
    ),
    Source(
        name="libreoffice-help",
        home="Debian 12 packages libreoffice-help-en-us and libreoffice-help-es",
        version=f"4:{LIBREOFFICE_VERSION}",
        licence="MPL-2.0 (some files include Apache-2.0 material)",
        outputs=(
            Output(
                "domains/libreoffice-help/pairs.tsv",
                "1ca658d47af6f157407b09fa1c711938addd959f1e0cbd6b2720840ef391533e",
            ),
            Output(
                "domains/libreoffice-help/tagged.tsv",
                "3987fc6509faa5fd4ff444bf2ed482e7a41d70af082f7fd540ef6081b24820ba",
            ),
        ),
        downloads=(
            _deb(
                "libreoffice-help-en-us",
                sha1="d4ccd840972b4de88129de9268cfdde5fa039296",
                sha256="8faa840285734d6cfe1ed25537b48f07e74bd6412e3917bf8e5f8a653f7b3712",
            ),
            _deb(
                "libreoffice-help-es",
                sha1="c6962f2beda768a26580947f04e989782ac0621d",
                sha256="9128a84d83d92c8b1c618d90469d16affddb7d1290b09d42a0c5109cb16f0480",
            ),
        ),
        convert=libreoffice,
    ),
)

GENERAL = (
    Source(
        name="xquad",
        home="https://github.com/deepmind/xquad",
        version=f"commit {XQUAD_COMMIT}",
        licence="CC BY-SA 4.0",
        outputs=(
            Output(
                "general/xquad.tsv",
                "bb53b8bc80fd86f418f196079970932783bab68818950e666637e73b1c13804e",
            ),
        ),
        downloads=(
            _github(
                "deepmind/xquad",
                XQUAD_COMMIT,
                "xquad.en.json",
                "e4c57d1c9143aaa1c5d265ba5987a65f4e69528d2a98f29d6e75019b10344f29",
            ),
            _github(
                "deepmind/xquad",
                XQUAD_COMMIT,
                "xquad.es.json",
                "dcbae93ec3a9f4b9e78fd834a171d6f96c1a875e10e15b7530b7e4ef4971e37e",
            ),
        ),
        convert=xquad,
    ),
    Source(
        name="tico19",
        home="https://github.com/tico-19/tico-19.github.io, data/TM/all.en-es-419.tmx",
        version="commit d97615f9cffa28ec7de571e00fbd513e5a1c7fc7",
        licence="CC0 1.0",
        outputs=(
            Output(
                "general/tico19.tsv",
                "d0daa35049a1765737fcec07d70922dfbdc968725166b1e31075ccdeb118c090",
            ),
        ),
        reproducible=False,
        why_not="the README removes the pairs of TICO-19's test split by English, by English "
        "'with case, punctuation and spacing folded' and by Spanish, and does not say how it folds",
    ),
    Source(
        name="flores-dev",
        home="https://github.com/Helsinki-NLP/OPUS-MT-testsets, "
        "testsets/flores200_dataset/dev/{eng,spa}.dev",
        version="commit 5677844c738832a280dc1d59a056a970564bdce3",
        licence="CC BY-SA 4.0 (FLORES-101/200, Meta AI)",
        outputs=(
            Output(
                "general/flores-dev.tsv",
                "84067c7c0e1cb3f6df25af878abd7a2ff7f93e644901a4630f703408f93940b7",
            ),
        ),
        reproducible=False,
        why_not="one of the 997 pairs was removed for overlapping a held-out test set, and the "
        "README does not say which",
    ),
    Source(
        name="un-news",
        home="https://github.com/fgurtler/spanish-corpora, "
        "centro-de-noticias-onu/html_original/*.html",
        version="commit 7d1fb34eb1f00706f52ddf76775b9f920cad5600",
        licence="© United Nations: for research use here, do not redistribute",
        outputs=(
            Output(
                "general/un-news.es.tsv.xz",
                "09959055a7ed55e669a5ff0d265d0bfaf9a02f3df7bb77adc4e0d78da91324c1",
            ),
        ),
        reproducible=False,
        why_not="a scrape of 34,520 HTML pages cleaned by rules that the README describes but "
        "does not give (boilerplate, a pasted webmail page cut, 155 split paragraphs joined, "
        "18 fragments dropped)",
    ),
    Source(
        name="eltec",
        home="https://github.com/COST-ELTeC/ELTeC-spa, level1/*.xml",
        version="commit 83e2a22d5ef66f96e59f47f7ef810358c4236322",
        licence="texts in the public domain; encoding CC BY 4.0 (ELTeC-spa, COST Action CA16204)",
        outputs=(
            Output(
                "general/eltec.es.tsv.xz",
                "4fa650a20f36192aa8c6682c7cc6a029a75a84995bb58e02b05fd69787df9638",
            ),
        ),
        reproducible=False,
        why_not="the TEI extraction is described in prose only (which inline elements keep their "
        "text, the spaces at page and line breaks, which characters count as zero-width)",
    ),
    Source(
        name="amlo",
        home="https://github.com/roicort/ConferenciasMatutinasAMLO, corpus/YYYY-MM-DD.md",
        version="commit 542f4459ad763c7f75c9df8c519948d69c74cc54",
        licence="no licence file; Mexican government publications (gob.mx): for research use "
        "here, do not redistribute",
        outputs=(
            Output(
                "general/amlo.es.tsv.xz",
                "0979a8c575ab7896ca7d6ce64f6d74c808b80eb64f502851f99211d5d67500f1",
            ),
        ),
        reproducible=False,
        why_not="the extraction from 1,550 Markdown files is described in prose, not given (which "
        "letters make a speaker label or count as upper case, what is a word), and the README "
        "names no xz settings, on which the .xz's bytes depend",
    ),
)

LEXICON = Source(
    name="wiktionary",
    home="https://github.com/open-dsl-dict/wiktionary-dict (English Wiktionary's translation "
    "tables as Matthias Buchmeier extracted them, version 20150102)",
    version=f"commit {WIKTIONARY_COMMIT}",
    licence="CC BY-SA 3.0 Unported and GFDL (dual): attribute English Wiktionary contributors "
    "(via open-dsl-dict/wiktionary-dict)",
    outputs=tuple(Output(path, digest) for path, digest in WIKTIONARY_SHA256.items()),
    downloads=tuple(
        _github("open-dsl-dict/wiktionary-dict", WIKTIONARY_COMMIT, path, WIKTIONARY_SHA256[placed])
        for path, placed in WIKTIONARY_FILES.items()
    ),
    convert=wiktionary,
)

SOURCES: tuple[Source, ...] = (CORPUS, *DOMAINS, *GENERAL, LEXICON)
