"""Casual input made to look like the training English before it is translated.

"im sure tom knows where it is" is input a model trained on "I'm sure Tom knows where it is."
rarely saw. What is lost is put back from the training English alone (mt.text.wordstats), in
four cheap steps, each a no-op on careful text:

- apostrophes: "dont", "im", "toms"; a real word ("its", "ill") by its neighbours or first place;
- typos: an unknown lower-case word one or two edits from a word the training uses often
  (mt.text.typos; "teh" -> "the"), else a keyboard slip from a common dictionary word;
- case: a word the training mostly capitalises ("tom", "i"), a common one only beside its name
  ("united states"), and each sentence's first letter;
- punctuation: "?", "!" or "." by how the training sentences that start alike end.

A line with a capital and final punctuation (`careful`) comes out byte for byte; elsewhere words
with a capital or an apostrophe, protected spans and lines that are not prose (mt.text.prose) are
never touched. docs/text.md has the measurements.
"""

from __future__ import annotations

import functools
import re
from collections import ChainMap, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from mt.text.dictionary import COMMON, english_word, english_words
from mt.text.prose import FUNCTION_WORDS, command_like, is_prose, outside_spans
from mt.text.sentence_ends import MIN_START, capitalise_starts, punctuated, usual_mark
from mt.text.spans import find_spans, replace_spans
from mt.text.typos import EDIT_WEIGHTS, slips_of, two_slips, weighted_edits
from mt.text.words import WORD
from mt.text.wordstats import MIN_PAIR, REAL_WORDS, SENTENCE_START, WordStats

STEPS = ("apostrophes", "typos", "case", "punctuation")
DEFAULT_STEPS = frozenset(STEPS)
"""What --normalize does."""
CONTRACTED = 0.99
"""Share of a word's training uses that must carry the apostrophe for it to be restored: "its"
(95% "it's") and "ill" (95% "I'll") stay as typed."""
MIN_CONTRACTED = 5  # training uses an apostrophe spelling needs before it is restored
CONTEXT_ODDS = 10.0
"""How much likelier the training English must make "it's" than "its" between the same
neighbours before a casual "its" gets the apostrophe."""
TYPO_TARGET = 5  # training uses a word needs to be what an unknown word one edit away meant
MIN_TYPO_LENGTH = 3  # too many words lie one edit from a shorter one
SHORT_WORD = 3
SHORT_TYPO_TARGET = 50
"""Many words lie one edit from a three-letter one: only a word used this often, a keyboard slip
or a letter too many away, is what was meant ("teh" -> "the")."""
DICTIONARY_TARGET = COMMON
"""The dictionary frequency a word needs to be what a slip meant when the training English has
none ("gaveyard" -> "graveyard"; "lumpy", 768, is not what "numpy" meant)."""
CAPITALISED = 0.5
MIN_CASED = 2
"""Share of a word's later (not first) training uses that must be capitalised to capitalise it,
and how many there must be ("morocco", used twice, gets its capital)."""
MIN_LOWER_START = 3
"""Training sentences a word must start in lower case to make a line a command ("git")."""
CAPITALISED_COMMON = 0.9
"""The same share for a word common in everyday English: the domains write menus and literals
with a capital ("Insert", "Windows", "None"; "yes" 58%), names nearly always ("tom", "paris")."""
ACRONYM_LOWER = 0.1
"""All capitals only for a word rarely in lower case: "nasa" -> "NASA", but "us" (42%) stays."""
MAX_TWO_SLIPS = 12
"""Letters up to which an unknown word is also read as two slips: their number grows with the
square of its length (about 0.16 s for 12 letters; docs/bad-inputs.md)."""
MEMO = 4096  # unknown words whose candidates a normaliser keeps
_ASIDE = 0xF0000  # supplementary private-use area: never in typed text's words
_CLOSERS = "\"'”’»)]"


@dataclass(frozen=True)
class Normalizer:
    """Undo casual typing with tables from the training English; `steps` picks the steps run."""

    cased: Mapping[str, str]  # lower-case word -> its usual capitalised spelling
    contracted: Mapping[str, str]  # lower-case word without apostrophe -> with it
    known: Mapping[str, int]  # lower-case word -> training uses
    marks: Mapping[str, str]  # start -> the final mark of most such sentences: "?", "!" or "."
    steps: frozenset[str] = DEFAULT_STEPS
    lower_starts: frozenset[str] = frozenset()  # a line starting so is a command ("git", "docker")
    contracted_first: Mapping[str, str] = field(default_factory=dict)
    """Like `contracted`, for real words as a sentence's first word ("its" -> "it's")."""
    real_contracted: Mapping[str, str] = field(default_factory=dict)
    """A real word -> its most used apostrophe spelling ("its" -> "it's", "ill" -> "i'll")."""
    pairs: Mapping[str, int] = field(default_factory=dict)  # WordStats.pairs: neighbours
    cased_in_names: Mapping[str, str] = field(default_factory=dict)
    """Common words capitalised only beside a name they belong to ("united states")."""

    @classmethod
    def from_stats(cls, stats: WordStats, steps: frozenset[str] = DEFAULT_STEPS) -> Normalizer:
        uses: dict[str, int] = defaultdict(int)
        firsts: dict[str, int] = defaultdict(int)  # uses as a sentence's first word
        capital_first: dict[str, int] = defaultdict(int)  # of them, with a capital
        later: dict[str, dict[str, int]] = defaultdict(dict)  # spelling -> later uses
        for word, spelling in stats.spellings.items():
            lower = word.lower()
            uses[lower] += spelling.first + spelling.later
            firsts[lower] += spelling.first
            capital_first[lower] += 0 if word.islower() else spelling.first
            later[lower][word] = spelling.later
        cased, cased_in_names = _usual_capitals(later, common=english_words().frequency)
        marks = {
            start: usual_mark(counts)
            for start, counts in stats.starts.items()
            if counts.sentences >= MIN_START
        }
        lower_starts = frozenset(
            word
            for word, spelling in stats.spellings.items()
            if word.islower()
            and word not in FUNCTION_WORDS
            and spelling.first >= MIN_LOWER_START
            and spelling.first >= 2 * capital_first[word]
        )
        return cls(
            cased,
            _contractions(uses, real=False),
            dict(uses),
            marks,
            frozenset(steps),
            lower_starts,
            _contractions(firsts, real=True),
            _real_contractions(uses),
            dict(stats.pairs),
            cased_in_names,
        )

    def __call__(self, sentence: str) -> str:
        # Elsewhere than in a careful line, words the writer gave an apostrophe or a capital
        # (after the first letter) are left alone too ("fathers" stays, "Islands" is not made).
        if careful(sentence) or not self._casual_english(sentence):
            return sentence  # a command ("git cola --prompt") or a name is not casual English
        # Protected spans (mt.text.spans) stand aside as private-use characters ("``ls``" stays).
        spans = find_spans(sentence)
        masked = replace_spans(
            sentence, spans, {span.text: chr(_ASIDE + i) for i, span in enumerate(spans)}
        )
        cased = any(c.isupper() for c in masked.lstrip()[1:])
        steps = self.steps - ({"case", "typos"} if cased else set())
        careless = _careless(masked)
        steps -= set() if careless else {"typos"}
        steps -= {"apostrophes"} if "'" in masked or "’" in masked else set()
        # Real words ("its", "were") are read as contractions only in careless lines, by context.
        if "apostrophes" in steps and self.pairs and careless:
            steps |= {"in context"}
        matches = list(WORD.finditer(masked))
        first = matches[0].start() if matches and not masked[: matches[0].start()].strip() else -1
        lower = [SENTENCE_START] + [m.group().lower().replace("’", "'") for m in matches] + [""]
        pieces, end = [], 0
        for index, match in enumerate(matches):
            around = (lower[index], lower[index + 2])  # the words before and after, in lower case
            pieces += [masked[end : match.start()], self._word(match, steps, first, around)]
            end = match.end()
        text = "".join(pieces) + masked[end:]
        if "case" in self.steps:
            text = capitalise_starts(text, aside=_ASIDE)
        if "punctuation" in self.steps:
            # A number at the end is the sentence's last word ("are you 18" -> "Are you 18?").
            numbers = {chr(_ASIDE + i) for i, span in enumerate(spans) if span.kind == "number"}
            text = punctuated(text, self.marks, numbers)
        for i, span in enumerate(spans):
            text = text.replace(chr(_ASIDE + i), span.text)
        return text

    def _casual_english(self, sentence: str) -> bool:
        """Prose, or words the training English all uses (or slips of them) without a function word
        ("thats easy"); no command ("git status") nor a lone word no sentence starts with."""
        if is_prose(sentence):
            return True
        rest = outside_spans(sentence)
        matches = list(WORD.finditer(rest))
        if matches and matches[0].group() in self.lower_starts:
            return False
        words = [match.group().lower().replace("’", "'") for match in matches]
        careless = _careless(rest)
        known = [w in self.known or w in self.contracted for w in words]
        # One slip may stand among them ("check tgis out"), first only where what it meant
        # starts training sentences ("stpo moving"; "wnet home" is a command). With a function
        # word once put right, a line is prose and may hold more ("tthe room wqs empty"). Each
        # slip is read beside its neighbours, as the typo step reads it ("dake care": "take").
        neighbours = [SENTENCE_START, *words, ""]
        readings = [
            self._slip_reading(w, (neighbours[i], neighbours[i + 2]))
            if careless and not k and _between_spaces(match)
            else None
            for i, (match, w, k) in enumerate(zip(matches, words, known, strict=True))
        ]
        slips = [reading is not None for reading in readings]
        meant = [reading[0] if reading else w for reading, w in zip(readings, words, strict=True)]
        prose_once_right = any(w.replace("'", "") in FUNCTION_WORDS for w in meant)
        # A lone word: one that starts training sentences ("help"), or a slip of one ("listenn").
        lone = len(words) == 1 and (words[0] in self.marks or (slips[0] and meant[0] in self.marks))
        # More slips without a function word ("tthanks agani") only when none is a changed
        # letter: "hola amigo" is no "hold amino".
        sure = all(r[1] >= EDIT_WEIGHTS["letter too many"] for r in readings if r is not None)
        first_word = bool(words) and (known[0] or (slips[0] and meant[0].lower() in self.marks))
        # Dictionary words are English too ("tom swore"), where no slip is put right: "numpy"
        # in "tom uses numpy" is no slip of "bumpy".
        spelt = (
            len(words) >= 2
            and known[0]
            and all(k or english_word(w) for w, k in zip(words, known, strict=True))
        )
        return (
            not command_like(rest)
            and (len(words) >= 2 or lone)
            and (
                spelt
                or (
                    all(k or slip for k, slip in zip(known, slips, strict=True))
                    and (prose_once_right or (first_word and (sum(slips) <= 1 or sure)))
                )
            )
        )

    def _word(
        self, match: re.Match[str], steps: frozenset[str], first: int, around: tuple[str, str]
    ) -> str:
        typed = match.group()
        if not typed.islower():
            return typed
        word = typed.replace("’", "'")
        if "apostrophes" in steps and word in self.contracted:
            word = self.contracted[word]
        elif "in context" in steps and word in self.real_contracted and _between_spaces(match):
            word = self._in_context(word, *around)
        elif "apostrophes" in steps and match.start() == first and word in self.contracted_first:
            word = self.contracted_first[word]
        elif "typos" in steps and _between_spaces(match) and self._unknown(word):
            word = self._correction(word, around)[0]
        elif "typos" in steps and _between_spaces(match) and (misplaced := self._misplaced(word)):
            word = misplaced
        if "case" in steps:
            word = self.cased.get(word, word)
            if word in self.cased_in_names and self._in_name(word, *around):
                word = self.cased_in_names[word]
        return word if word != typed.replace("’", "'") else typed

    def _in_name(self, word: str, before: str, after: str) -> bool:
        """Whether a neighbour the case step capitalises (not "I") stands beside `word` as the
        training English puts it MIN_PAIR times or more ("united states")."""
        return any(
            neighbour in self.cased
            and neighbour != "i"
            and not neighbour.startswith("i'")
            and self.pairs.get(pair, 0) >= MIN_PAIR
            for neighbour, pair in ((before, f"{before} {word}"), (after, f"{word} {after}"))
        )

    def _in_context(self, word: str, before: str, after: str) -> str:
        """A real word ("its") or its contraction, whichever is CONTEXT_ODDS times likelier beside
        these neighbours: naive Bayes on the two pairs, half a count added to each."""
        contracted = self.real_contracted[word]
        uses = self.known.get(contracted, 0) + 0.5, self.known.get(word, 0) + 0.5
        odds = uses[0] / uses[1]
        for with_it, without in (
            (f"{before} {contracted}", f"{before} {word}"),
            (f"{contracted} {after}", f"{word} {after}"),
        ):
            counts = self.pairs.get(with_it, 0), self.pairs.get(without, 0)
            if any(counts):
                odds *= ((counts[0] + 0.5) / uses[0]) / ((counts[1] + 0.5) / uses[1])
        return contracted if odds >= CONTEXT_ODDS else word

    def _slip_reading(self, word: str, around: tuple[str, str]) -> tuple[str, float] | None:
        """What a slip the typo step puts right meant, and its weight; None for other words."""
        if "typos" not in self.steps:
            return None
        if misplaced := self._misplaced(word):
            return misplaced, 1.0
        if not self._unknown(word):
            return None
        meant, weight = self._correction(word, around)
        return (meant, weight) if meant != word else None

    def _unknown(self, word: str) -> bool:
        return (
            len(word) >= MIN_TYPO_LENGTH
            and "'" not in word
            and word not in self.known
            and word not in self.contracted
            and word not in REAL_WORDS
            and not english_word(word)
        )

    def _misplaced(self, word: str) -> str | None:
        """The most used contraction an odd apostrophe or extra letter hides ("could'nt")."""
        if "'" not in word or word in self.known:
            return None
        letters = word.replace("'", "")
        if len(letters) > self._longest + 1:
            return None  # no contraction is so long, less one letter
        candidates = {letters} | {letters[:i] + letters[i + 1 :] for i in range(len(letters))}
        found = [self.contracted[c] for c in candidates if c in self.contracted]
        return max(sorted(found), key=lambda c: self.known.get(c, 0), default=None)

    def _correction(self, word: str, around: tuple[str, str]) -> tuple[str, float]:
        """What `word` most likely meant and its edit's weight (0 for the dictionary's guess): the
        training word used TYPO_TARGET times or more (a short one SHORT_TYPO_TARGET) highest in
        uses x weight x (1 + count beside the neighbours); else a common word a slip away."""
        if len(word) > self._longest + 2:
            return word, 0.0  # two edits reach no word it knows
        short = len(word) <= SHORT_WORD
        found = self._candidates(word)
        if found:
            odds = self._neighbour_odds(sorted(found), around)
            best = max(sorted(found), key=lambda c: found[c][0] * odds[c])
            return best, found[best][1]
        if short or not self.known:
            return word, 0.0  # without training statistics the dictionary alone decides nothing
        best, frequency = word, english_words().frequency
        best_frequency = DICTIONARY_TARGET - 1
        for candidate in sorted(slips_of(word)):
            if frequency(candidate) > best_frequency:
                best, best_frequency = candidate, frequency(candidate)
        return best, 0.0

    def _candidates(self, word: str) -> dict[str, tuple[float, float]]:
        """The training words `word` may be a slip of -> (uses times weight, weight), memoised."""
        if word in self._memo:
            return self._memo[word]
        short = len(word) <= SHORT_WORD
        least = SHORT_TYPO_TARGET if short else TYPO_TARGET
        found: dict[str, tuple[float, float]] = {}  # candidate -> (uses times weight, weight)
        one_edit = short or len(word) > MAX_TWO_SLIPS
        for edits in (
            weighted_edits(word, short=short),
            {} if one_edit else two_slips(word, ChainMap(self.known, self.contracted)),
        ):
            for candidate, weight in sorted(edits.items()):
                spelled = self.contracted.get(candidate, candidate)
                uses = self.known.get(spelled, 0)
                if uses >= least and uses * weight > found.get(spelled, (0.0, 0.0))[0]:
                    found[spelled] = uses * weight, weight
            likeliest = max(sorted(found), key=lambda c: found[c][0], default=None)
            if likeliest and found[likeliest][1] >= EDIT_WEIGHTS["letter too many"]:
                break  # a slip explains it: two are not looked for (thousands of words)
        if len(self._memo) >= MEMO:
            self._memo.clear()
        self._memo[word] = found
        return found

    @functools.cached_property
    def _memo(self) -> dict[str, dict[str, tuple[float, float]]]:
        return {}

    @functools.cached_property
    def _longest(self) -> int:
        """The longest word a slip may be of (training words, contractions, common words)."""
        words: Iterable[str] = (*self.known, *self.contracted, *english_words().common)
        return max(map(len, words), default=0)

    def _neighbour_odds(self, candidates: list[str], around: tuple[str, str]) -> dict[str, float]:
        """One plus the training's count of each candidate beside its neighbours (no penalty)."""
        before, after = around
        return {
            c: 1.0 + self.pairs.get(f"{before} {c}", 0) + self.pairs.get(f"{c} {after}", 0)
            for c in candidates
        }


def _usual_capitals(
    later: Mapping[str, Mapping[str, int]], common: Callable[[str], int]
) -> tuple[dict[str, str], dict[str, str]]:
    """A lower-case word -> the capitalised spelling most of its later uses have (a common word's:
    nearly all); and the common words with it in most but not nearly all (cased_in_names)."""
    cased, in_names = {}, {}
    for lower, spellings in later.items():
        best = max(spellings, key=lambda w: (spellings[w], w))
        total = sum(spellings.values())
        acronym = best.isupper() and spellings.get(lower, 0) >= ACRONYM_LOWER * total
        if best == lower or acronym or total < MIN_CASED or spellings[best] < CAPITALISED * total:
            continue
        if common(lower) >= COMMON and spellings[best] < CAPITALISED_COMMON * total:
            in_names[lower] = best
        else:
            cased[lower] = best
    return cased, in_names


def _contractions(counts: Mapping[str, int], *, real: bool) -> dict[str, str]:
    """A word typed without its apostrophe -> with it, where CONTRACTED of the uses of either
    (MIN_CONTRACTED at least) have it; of the REAL_WORDS only (`real`), or of none of them."""
    found = {}
    for word, count in counts.items():
        plain = word.replace("'", "")
        if plain == word or (plain in REAL_WORDS) != real or count < MIN_CONTRACTED:
            continue
        if count >= CONTRACTED * (count + counts.get(plain, 0)):
            found[plain] = word
    return found


def _real_contractions(uses: Mapping[str, int]) -> dict[str, str]:
    """A real word -> its most used apostrophe spelling ("its" -> "it's"), from lower-case uses."""
    contractions: dict[str, str] = {}
    for word, count in uses.items():
        plain = word.replace("'", "")
        if plain != word and plain in REAL_WORDS and count > uses.get(contractions.get(plain), 0):
            contractions[plain] = word
    return contractions


def _between_spaces(match: re.Match[str]) -> bool:
    """A word standing free, not glued to other signs ("seq[0]", "[f]ile"): only such are slips."""
    text, start, end = match.string, match.start(), match.end()
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return before.isspace() and (after.isspace() or after in ",.!?;:")


def careful(text: str) -> bool:
    """Written with care: a capital somewhere and final punctuation (closing quotes aside)."""
    stripped = text.rstrip().rstrip(_CLOSERS)
    return any(c.isupper() for c in text) and bool(stripped) and stripped[-1] in ".!?:;…"


def _careless(text: str) -> bool:
    """Typed without a capital or final punctuation: only there are unknown words slips ("zmap")."""
    stripped = text.rstrip().rstrip(_CLOSERS)
    return not any(c.isupper() for c in text) and not (stripped and stripped[-1] in ".!?:;")


def normalizer_to_json(normalizer: Normalizer) -> dict[str, object]:
    """The normaliser's tables as JSON (mt.storage.derived keeps them): sets as sorted lists, each
    table as its keys joined by newlines beside a list of its values (twice as fast to read)."""
    return {
        item.name: _encoded(value)
        for item in fields(normalizer)
        if (value := getattr(normalizer, item.name)) is not None
    }


def normalizer_from_json(data: dict[str, Any]) -> Normalizer:
    sets = {"steps", "lower_starts"}
    return Normalizer(
        **{
            name: frozenset(value) if name in sets else _decoded(value)
            for name, value in data.items()
        }
    )


def _encoded(value: object) -> object:
    if isinstance(value, frozenset):
        return sorted(value)
    table = dict(value)  # type: ignore[call-overload]
    if any("\n" in key for key in table):  # no word holds one; kept as an object if one did
        return table
    return {"keys": "\n".join(table), "values": list(table.values())}


def _decoded(value: Any) -> Any:
    if isinstance(value, dict) and value.keys() == {"keys", "values"}:
        keys = value["keys"].split("\n") if value["values"] else []  # "" is one key, or none
        return dict(zip(keys, value["values"], strict=True))
    return value
