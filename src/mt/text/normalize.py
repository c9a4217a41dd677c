"""Casual input made to look like the training English before it is translated.

"im sure tom knows where it is" reaches a model trained on "I'm sure Tom knows where it is." as
input it has rarely seen. What is lost can mostly be put back from the training English alone
(mt.text.wordstats counts it at `mt prepare`), in four steps, each cheap and each a no-op on text
written with care:

- apostrophes: a word typed without one, whose apostrophe spelling is at least CONTRACTED of the
  training uses ("dont", "im", "toms"); a word that exists without one (REAL_WORDS: "its",
  "were", "well", "ill", "hell", ...) only as a sentence's first word, where the apostrophe
  spelling starts at least CONTRACTED of the training sentences that start with either ("its
  not easy" -> "It's not easy.", "ill help" -> "I'll help."; "were", whose plain spelling starts
  a tenth of them, "Were you there?", stays);
- typos: an all-lower-case word that neither the training English nor an English dictionary
  (pyspellchecker's word list, so "heed" and "surfer" are words, not slips) knows, one edit (a
  letter changed, dropped, added, or two swapped) from a word the training uses TYPO_TARGET times
  or more, becomes the most frequent such word; failing that, the dictionary's most frequent word
  one edit away, if it is common (DICTIONARY_TARGET: "gaveyard" -> "graveyard"). A three-letter
  word ("teh", "otm", "hsd", "jus") is only taken for a keyboard slip (a neighbouring key, a
  letter dropped or doubled, two swapped), failing that for a letter too many ("ois", "myu"), of
  a word the training uses SHORT_TYPO_TARGET times, and a longer one only for a keyboard slip of
  the dictionary's word; a contraction with its apostrophe misplaced or a letter too many
  ("could'nt", "dont't") becomes the contraction;
- case: an all-lower-case word the training English writes capitalised in most of its uses after
  the first word ("tom" -> "Tom", "i" -> "I", "i'm" -> "I'm"), a word common in everyday English
  only in nearly all of them or beside the name it belongs to ("yes", "none" and "windows" stay,
  "united states" -> "United States"), and the first letter of the sentence;
- punctuation: a sentence ending in a letter or digit gets "?" when the training sentences that
  start like it (first two words, else the first) mostly end in one, or its last clause does
  ("you're tired, aren't you"), "!" when they mostly end in that ("what a", "wake up"), else ".".

A line with a capital and final punctuation (`careful`) comes out byte for byte as it went in,
and elsewhere words the writer capitalised or gave an apostrophe are never touched (docs/text.md
has the measurements); nor are URLs, code and the other protected spans,
nor lines that are not prose (mt.text.prose: "git cola --prompt" stays as typed).
"""

from __future__ import annotations

import functools
import re
import string
from collections import ChainMap, defaultdict
from collections.abc import Callable, Container, Iterable, Mapping, Set
from dataclasses import dataclass, field, fields
from typing import Any

from mt.text.casual import NEIGHBOURS
from mt.text.dictionary import COMMON, english_word, english_words
from mt.text.prose import FUNCTION_WORDS, command_like, is_prose, outside_spans
from mt.text.spans import find_spans, replace_spans
from mt.text.words import WORD
from mt.text.wordstats import (
    MIN_PAIR,
    REAL_WORDS,
    SENTENCE_START,
    Start,
    WordStats,
    start_keys,
    words_of,
)

STEPS = ("apostrophes", "typos", "case", "punctuation")
DEFAULT_STEPS = frozenset(STEPS)
"""What --normalize does. The typo step asks the dictionary too: with the training English alone
it took rare words for slips ("heed" -> "need": 22 of 2,000 clean selection sentences changed);
with it, none."""
CONTRACTED = 0.99
"""Share of a word's training uses that must carry the apostrophe for it to be restored: "its"
(95% "it's") and "ill" (95% "I'll") stay as typed."""
MIN_CONTRACTED = 5
"""Training uses an apostrophe spelling needs before it is restored."""
CONTEXT_ODDS = 10.0
"""How much likelier the training English must make the apostrophe spelling of a real word
("it's" for "its") between the same neighbours before a casual "its" gets it."""
TYPO_TARGET = 5
"""Training uses a word needs before an unknown word one edit away is taken for a slip of it."""
MIN_TYPO_LENGTH = 3
"""Shorter unknown words are left alone: too many words lie one edit from a two-letter one."""
SHORT_WORD = 3
SHORT_TYPO_TARGET = 50
"""Many words lie one edit from a three-letter one: only a word the training uses this often,
one keyboard slip away (`_slips_of`), is taken for what was meant ("teh" -> "the")."""
EDIT_WEIGHTS = {
    "slip": 1.0,  # two letters swapped, a letter dropped or doubled
    "key beside": 0.5,  # the key next to the one meant
    "letter too many": 0.05,
    "other letter": 0.01,
    "two slips": 0.002,
}
"""How likely each kind of edit is, against the uses of the word it reaches (chosen on the
real-typing selection set, benchmarks/text/bench_real_typing.py): a word used 20 times as often
as a swap's ("of" against "foo" for "ofo") is taken for a letter too many, and a keyboard slip
beats a word 100 times as common a changed letter away ("than" against "that" for "tham")."""
DICTIONARY_TARGET = COMMON
"""pyspellchecker's frequency a dictionary word needs to be taken for what a slip meant when
the training English has no such word (its rare words: "gaveyard" -> "graveyard"); "lumpy"
(768) is not common enough to be what "numpy" meant."""
CAPITALISED = 0.5
MIN_CASED = 2
"""Share of a word's later (not first) training uses that must be capitalised to capitalise it,
and how many there must be: a name used twice, never in lower case, gets its capital ("morocco";
3 until version 7: docs/text.md)."""
MIN_LOWER_START = 3
"""Training sentences a word must start in lower case to mark a line that starts with it as a
command ("git", "docker"), not casual English."""
CAPITALISED_COMMON = 0.9
"""The same share for a word common in everyday English (the dictionary's frequency at least
COMMON): the technical English of the domains writes its menus, products and literals with a
capital ("Insert", "Draw", "Windows", "None", "False"; "yes" is "Yes" in 58% of its later uses),
so a casual "i said yes" became "I said Yes." and "close the windows" "Close the Windows."
(docs/text.md, "Version 7"). Names keep theirs: "tom", "paris", "monday" are capitalised in over
99% of their later uses, "united" in 95%."""
ACRONYM_LOWER = 0.1
"""An all-capitals spelling is taken only for a word that is rarely written in lower case:
"nasa" -> "NASA" and "ok" -> "OK" (7% "ok"), but "us" stays (42% of its uses, the rest "US")."""
QUESTION = 0.5
MIN_START = 3
"""Training sentences a start needs before its share of questions is trusted."""
TAG_WORDS = 2
"""Words of a last clause ("you're tired, aren't you") that may make a question by its first
word alone (a tag's two words seldom start a training sentence: "Isn't he tall?" starts with
"isn't he" once); a longer one needs its first two words (issue 51, docs/text.md)."""
RELATIVES = frozenset(("which", "who", "whom", "whose", "where", "when"))
"""After a comma these start a relative clause ("an IBM code page, which is ASCII compatible"),
though "which is" starts questions: such a last clause makes no question."""
MAX_TWO_SLIPS = 12
"""Letters up to which an unknown word is also read as two slips of a training word: the strings
two slips away grow with the square of its length (about 0.16 s of them for 12 letters), so a
longer word is read as one edit (docs/bad-inputs.md). A word two letters longer than any it
could be a slip of is not read at all (`Normalizer._longest`: a 1,000-letter word's two slips
ended in a MemoryError)."""
MEMO = 4096
"""Unknown words whose candidates a normaliser keeps (`Normalizer._candidates`)."""
EXCLAMATION = 0.5
"""Share of a start's training sentences that must end in "!" for a casual one to get it
("what a", "how lovely", "wake up"), when they are not mostly questions."""

WORD_WINDOW = 64
"""Characters read back from a full stop for the word it follows (`_ends_sentence`)."""
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*\s+(?=\S)")
_ABBREVIATIONS = frozenset(("mr", "mrs", "ms", "dr", "st", "vs", "etc", "prof", "no", "approx"))
_ASIDE = 0xF0000  # supplementary private-use area: never in typed text's words
_CLOSERS = "\"'”’»)]"


@dataclass(frozen=True)
class Normalizer:
    """Undo casual typing with tables from the training English; `steps` picks which steps run
    (DEFAULT_STEPS unless told; the benchmark turns them on one at a time)."""

    cased: Mapping[str, str]  # lower-case word -> its usual capitalised spelling
    contracted: Mapping[str, str]  # lower-case word without apostrophe -> with it
    known: Mapping[str, int]  # lower-case word -> training uses
    marks: Mapping[str, str]  # start -> the final mark of most such sentences: "?", "!" or "."
    steps: frozenset[str] = DEFAULT_STEPS
    lower_starts: frozenset[str] = frozenset()
    """Words the training English starts sentences with in lower case (tldr's "git", "docker"):
    a line that starts so is a command, not casual typing."""
    contracted_first: Mapping[str, str] = field(default_factory=dict)
    """Like `contracted`, for real words as a sentence's first word ("its" -> "it's"): what
    decides when the statistics have no pairs (written before them)."""
    real_contracted: Mapping[str, str] = field(default_factory=dict)
    """A real word -> its most used apostrophe spelling ("its" -> "it's", "ill" -> "i'll")."""
    pairs: Mapping[str, int] = field(default_factory=dict)
    """Neighbouring words around real words and their contractions (WordStats.pairs)."""
    cased_in_names: Mapping[str, str] = field(default_factory=dict)
    """Common words capitalised in most but not nearly all of their later uses ("states",
    "south"; CAPITALISED_COMMON): capitalised only beside a capitalised word the training puts
    them beside, as a name ("united states", "south america"; not "tom draws")."""

    @classmethod
    def from_stats(cls, stats: WordStats, steps: frozenset[str] = DEFAULT_STEPS) -> Normalizer:
        uses: dict[str, int] = defaultdict(int)
        later: dict[str, dict[str, int]] = defaultdict(dict)
        for word, spelling in stats.spellings.items():
            uses[word.lower()] += spelling.first + spelling.later
            later[word.lower()][word] = spelling.later
        cased, cased_in_names = _usual_capitals(later, common=english_words().frequency)
        contracted = {}
        for word, count in uses.items():
            plain = word.replace("'", "")
            if plain == word or plain in REAL_WORDS or count < MIN_CONTRACTED:
                continue
            if count >= CONTRACTED * (count + uses.get(plain, 0)):
                contracted[plain] = word
        firsts: dict[str, int] = defaultdict(int)
        for word, spelling in stats.spellings.items():
            firsts[word.lower()] += spelling.first
        contracted_first = {
            plain: word
            for word, count in firsts.items()
            if (plain := word.replace("'", "")) in REAL_WORDS
            and plain != word
            and count >= MIN_CONTRACTED
            and count >= CONTRACTED * (count + firsts.get(plain, 0))
        }
        marks = {
            start: _usual_mark(counts)
            for start, counts in stats.starts.items()
            if counts.sentences >= MIN_START
        }
        capital_first: dict[str, int] = defaultdict(int)
        for word, spelling in stats.spellings.items():
            if not word.islower():
                capital_first[word.lower()] += spelling.first
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
            contracted,
            dict(uses),
            marks,
            frozenset(steps),
            lower_starts,
            contracted_first,
            _real_contractions(uses),
            dict(stats.pairs),
            cased_in_names,
        )

    def __call__(self, sentence: str) -> str:
        # A line with a capital and final punctuation was written with care: it comes out byte
        # for byte ("This lets you choose the file." keeps "lets", "The cant of the hill." its
        # "cant"). Elsewhere a writer who used an apostrophe or a capital (after the first
        # letter) knows them: such words are left alone ("fathers" stays, "Islands" is not made).
        if careful(sentence) or not self._casual_english(sentence):
            return sentence  # a command ("git cola --prompt") or a name is not casual English
        # URLs, code, paths and the other protected spans (mt.text.spans) are copied as they are
        # ("``ls``" must not become "``Ls``"): each stands aside as a private-use character.
        spans = find_spans(sentence)
        masked = replace_spans(
            sentence, spans, {span.text: chr(_ASIDE + i) for i, span in enumerate(spans)}
        )
        cased = any(c.isupper() for c in masked.lstrip()[1:])
        steps = self.steps - ({"case", "typos"} if cased else set())
        careless = _careless(masked)
        steps -= set() if careless else {"typos"}
        steps -= {"apostrophes"} if "'" in masked or "’" in masked else set()
        # Real words ("its", "were", "well") are only read as contractions in lines typed
        # without care, where the neighbours decide: a careful "were" is meant.
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
            text = _capitalise_starts(text)
        if "punctuation" in self.steps:
            # A number at the end is the sentence's last word ("are you 18" -> "Are you 18?").
            numbers = {chr(_ASIDE + i) for i, span in enumerate(spans) if span.kind == "number"}
            text = self._punctuated(text, numbers)
        for i, span in enumerate(spans):
            text = text.replace(chr(_ASIDE + i), span.text)
        return text

    def _casual_english(self, sentence: str) -> bool:
        """Prose (mt.text.prose), or casual typing without a function word ("tom failed",
        "thats easy") whose words the training English all uses (or are slips the typo step
        puts right) and whose first word it does not start sentences with in lower case; not a
        command line ("git status", "git mktree") nor a lone word no training sentence starts
        with ("alacritty", "str")."""
        if is_prose(sentence):
            return True
        rest = outside_spans(sentence)
        matches = list(WORD.finditer(rest))
        if matches and matches[0].group() in self.lower_starts:
            return False
        words = [match.group().lower().replace("’", "'") for match in matches]
        careless = _careless(rest)
        known = [w in self.known or w in self.contracted for w in words]
        # One slip the typo step would put right may stand among them ("check tgis out"), but
        # not first, unless what it meant starts training sentences ("stpo moving"): a command
        # starts with its program's name ("aws iam list-groups", "wnet home"). Once the slips
        # are put right, a line with a function word is prose: then there may be more of them,
        # the first word too ("tthe room wqs empty", "aare oyu studying").
        # Each slip is read as the typo step reads it, beside the words typed around it ("dake
        # care": "take", which starts sentences, not "cake").
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
        # A lone word is casual English when training sentences start with it ("help", "fire",
        # "hello"), or it is a slip of one ("listenn"), and no command: those start theirs in
        # lower case (`lower_starts`, above).
        lone = len(words) == 1 and (words[0] in self.marks or (slips[0] and meant[0] in self.marks))
        # More than one slip without a function word ("tthanks agani", "brin bakcup") only when
        # each is a slip a typist makes (EDIT_WEIGHTS from a letter too many up), not a changed
        # letter: "hola amigo" is no "hold amino".
        sure = all(r[1] >= EDIT_WEIGHTS["letter too many"] for r in readings if r is not None)
        first_word = bool(words) and (known[0] or (slips[0] and meant[0].lower() in self.marks))
        # Words the dictionary knows are English too where training used them too seldom to count
        # ("tom swore", "tom gasped"), in a line with no slip to put right: "numpy" in "tom uses
        # numpy" is no slip of "bumpy".
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
        training English puts it, MIN_PAIR times or more ("united states", "south korea")."""
        return any(
            neighbour in self.cased
            and neighbour != "i"
            and not neighbour.startswith("i'")
            and self.pairs.get(pair, 0) >= MIN_PAIR
            for neighbour, pair in ((before, f"{before} {word}"), (after, f"{word} {after}"))
        )

    def _in_context(self, word: str, before: str, after: str) -> str:
        """A real word ("its") or its contraction ("it's"), whichever the training English
        writes between these neighbours, when it is CONTEXT_ODDS times likelier: "i think its
        late" -> "it's", "the dog wagged its tail" -> "its". Naive Bayes on the two pairs
        (before word, word after), half a count added to each; a neighbour the training never
        puts beside either spelling says nothing."""
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
        """What a typo the typo step would put right meant ("tgis" in "check tgis out",
        "could'nt"), and its edit's weight (1 for a misplaced apostrophe); None for any other
        word. Whether there is such a reading does not depend on the neighbours, only which."""
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
        """The contraction a word with a misplaced or doubled apostrophe or letter meant
        ("could'nt", "dont't" -> "don't"): its letters, or them less one, are a contraction's
        typed without its apostrophe; the most used such one. None for any other word."""
        if "'" not in word or word in self.known:
            return None
        letters = word.replace("'", "")
        if len(letters) > self._longest + 1:
            return None  # no contraction is so long, less one letter
        candidates = {letters} | {letters[:i] + letters[i + 1 :] for i in range(len(letters))}
        found = [self.contracted[c] for c in candidates if c in self.contracted]
        return max(sorted(found), key=lambda c: self.known.get(c, 0), default=None)

    def _correction(self, word: str, around: tuple[str, str]) -> tuple[str, float]:
        """What `word` most likely meant, and the weight of the edit that reaches it (0 for the
        dictionary's guess, or none): of the training words an edit or two away (a
        contraction typed without its apostrophe counts as its contraction), the one whose
        uses times the edit's weight (EDIT_WEIGHTS) times one plus the times the training puts
        it beside the words `around` it are highest, among those used TYPO_TARGET times (a
        short word: SHORT_TYPO_TARGET, and only keyboard slips or a letter too many); failing
        that, for a longer word, the dictionary's most frequent word one keyboard slip away, if
        it is common; `word` when there is none. So "ofo" is "of", not "foo", yet "tmo" is
        "tom", not "to"; "tham" is "than", not "that"; and "i lveo garlic" is "love", not
        "level" (with the training's pairs of neighbours, mt.text.wordstats MIN_PAIR)."""
        if len(word) > self._longest + 2:
            return word, 0.0  # two edits reach no word it knows: it is no slip (nor is a blob)
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
        for candidate in sorted(_slips_of(word)):
            if frequency(candidate) > best_frequency:
                best, best_frequency = candidate, frequency(candidate)
        return best, 0.0

    def _candidates(self, word: str) -> dict[str, tuple[float, float]]:
        """The training words `word` may be a slip of -> (uses times weight, weight), as
        `_correction` weighs them; kept for the next time the word is asked about (each casual
        line asks twice, and a repeated word each time), up to MEMO words."""
        if word in self._memo:
            return self._memo[word]
        short = len(word) <= SHORT_WORD
        least = SHORT_TYPO_TARGET if short else TYPO_TARGET
        found: dict[str, tuple[float, float]] = {}  # candidate -> (uses times weight, weight)
        one_edit = short or len(word) > MAX_TWO_SLIPS
        for edits in (
            _weighted_edits(word, short=short),
            {} if one_edit else _two_slips(word, ChainMap(self.known, self.contracted)),
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
        """The longest word a slip may be of: of the training English, its contractions typed
        without the apostrophe, and the dictionary's common words."""
        words: Iterable[str] = (*self.known, *self.contracted, *english_words().common)
        return max(map(len, words), default=0)

    def _neighbour_odds(self, candidates: list[str], around: tuple[str, str]) -> dict[str, float]:
        """One plus the training's count of each candidate beside its neighbours (word before,
        word after). A bonus, never a penalty: pairs seen fewer than MIN_PAIR times are not
        kept, so a pair missing from the table is no sign that it never occurs (a likelihood
        ratio made "feek this" "fee this": "<s> feel" was one such)."""
        before, after = around
        return {
            c: 1.0 + self.pairs.get(f"{before} {c}", 0) + self.pairs.get(f"{c} {after}", 0)
            for c in candidates
        }

    def _punctuated(self, text: str, numbers: Set[str] = frozenset()) -> str:
        stripped = text.rstrip()
        if not stripped or not (stripped[-1].isalnum() or stripped[-1] in numbers):
            return text
        sentence = stripped[_last_sentence_start(stripped) :]
        mark = self._mark_of(start_keys(words_of(sentence)))
        # A question may follow a clause that is none: a tag ("you're tired, aren't you"), an
        # aside ("joking aside, what are you trying to say"), a condition ("if you won a
        # million, what would you do"): its first two words start training sentences that
        # are mostly questions ("have something to eat" is no "have you"), or, in a clause of
        # up to TAG_WORDS, whatever start of it the training knows ("isn't he"; "which proved
        # unwise" is no question). The last clause may make it one, never the reverse: "what
        # do you want, tom" stays a question.
        if mark != "?" and "," in sentence:
            words = words_of(_last_clause(sentence))
            keys = start_keys(words)
            keys = keys if len(words) <= TAG_WORDS else keys[-1:]  # its first two words
            if words and words[0].lower() not in RELATIVES and self._mark_of(keys) == "?":
                mark = "?"
        return stripped + mark + text[len(stripped) :]

    def _mark_of(self, keys: list[str]) -> str:
        """The mark of the most telling start the training knows (start_keys' order), else "."."""
        return next((self.marks[k] for k in reversed(keys) if k in self.marks), ".")


def _usual_capitals(
    later: Mapping[str, Mapping[str, int]], common: Callable[[str], int]
) -> tuple[dict[str, str], dict[str, str]]:
    """A lower-case word -> the capitalised spelling most of its later uses have (an
    all-capitals one only where lower case is rare: ACRONYM_LOWER), for a word `common` gives a
    frequency of COMMON or more nearly all of them (CAPITALISED_COMMON); and the common words
    that have it in most of their uses but not nearly all, capitalised only beside a name
    (Normalizer.cased_in_names)."""
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


def _usual_mark(counts: Start) -> str:
    """The final mark of most training sentences with this start: "?", "!" or "."."""
    if counts.questions >= QUESTION * counts.sentences:
        return "?"
    return "!" if counts.exclamations >= EXCLAMATION * counts.sentences else "."


def _real_contractions(uses: Mapping[str, int]) -> dict[str, str]:
    """A real word -> its most used apostrophe spelling ("its" -> "it's"), from lower-case uses."""
    contractions: dict[str, str] = {}
    for word, count in uses.items():
        plain = word.replace("'", "")
        if plain != word and plain in REAL_WORDS and count > uses.get(contractions.get(plain), 0):
            contractions[plain] = word
    return contractions


def _between_spaces(match: re.Match[str]) -> bool:
    """A word standing free, not glued to brackets, dots or other signs ("seq[0]", "pred(x)",
    "[f]ile", ".oxt", "*func*"): only such words can be slips."""
    text, start, end = match.string, match.start(), match.end()
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return before.isspace() and (after.isspace() or after in ",.!?;:")


def careful(text: str) -> bool:
    """Written with care: a capital somewhere and final punctuation (closing quotes and brackets
    aside). The normaliser returns such a line as it is, whatever its statistics say."""
    stripped = text.rstrip().rstrip(_CLOSERS)
    return any(c.isupper() for c in text) and bool(stripped) and stripped[-1] in ".!?:;…"


def _careless(text: str) -> bool:
    """Typed without a capital and without final punctuation: only in such lines are unknown
    words taken for slips (a line written with care keeps "zmap", "mbox" and "[f]ile")."""
    stripped = text.rstrip().rstrip(_CLOSERS)
    return not any(c.isupper() for c in text) and not (stripped and stripped[-1] in ".!?:;")


def _capitalise_starts(text: str) -> str:
    """The first letter of the line and of each sentence after it ("i'll keep it a secret.
    don't worry" -> "... Don't worry")."""
    starts = [0, *_sentence_starts(text)]
    ends = [*starts[1:], len(text)]
    pieces = [text[start:end] for start, end in zip(starts, ends, strict=True)]
    return "".join(map(_capitalise_first, pieces))


def _capitalise_first(text: str) -> str:
    match = WORD.search(text)
    if match is None or not match.group()[0].islower():
        return text
    if any(ord(c) >= _ASIDE for c in text[: match.start()]):
        return text  # the sentence starts with a protected span, not with this word
    return text[: match.start()] + text[match.start()].upper() + text[match.start() + 1 :]


def _ends_sentence(end: re.Match[str]) -> bool:
    """A full stop, question or exclamation mark that ends a sentence, not an abbreviation's
    ("e.g. this", "mr. smith", "etc. and") nor an initial's ("j. smith")."""
    # The word before, read from at most WORD_WINDOW characters back: a line of 30,000 "mr. "
    # must not read everything before each of them.
    before = end.string[max(0, end.start() - WORD_WINDOW) : end.start()].rsplit(maxsplit=1)
    word = before[-1].lower().rstrip(".") if before else ""
    initial = len(word) == 1 and word.isalpha() and word not in "ai"
    return end.group()[0] != "." or not ("." in word or word in _ABBREVIATIONS or initial)


def _sentence_starts(text: str) -> list[int]:
    """Where each sentence of `text` after its first starts."""
    return [end.end() for end in _SENTENCE_END.finditer(text) if _ends_sentence(end)]


def _last_clause(sentence: str) -> str:
    """What follows the last comma of a sentence."""
    return sentence.rsplit(",", 1)[-1]


def _last_sentence_start(text: str) -> int:
    """Where the last sentence of `text` starts: what decides its final mark."""
    return [0, *_sentence_starts(text)][-1]


def _weighted_edits(word: str, *, short: bool) -> dict[str, float]:
    """The words `word` may be a slip of, each with its edit's weight (EDIT_WEIGHTS, the
    likeliest kind when one word is reached two ways). A short word's only keyboard slips and
    a letter too many: too many words lie a changed letter from a three-letter one ("lol")."""
    kinds = {
        "letter too many": _deletes(word),
        "key beside": _keys_beside(word),
        "slip": _moved(word),
    }
    if not short:
        splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
        letters = string.ascii_lowercase
        kinds["other letter"] = {a + c + b[1:] for a, b in splits if b for c in letters}
    weights: dict[str, float] = {}
    for kind, candidates in kinds.items():
        for candidate in candidates - {word}:
            weights[candidate] = max(weights.get(candidate, 0.0), EDIT_WEIGHTS[kind])
    return weights


def _two_slips(word: str, words: Container[str]) -> dict[str, float]:
    """The `words` two keyboard slips or letters too many from `word` ("nkwo" for "know"), with
    their weight; none two letters shorter ("nkwo" is not "no", nor "bothe" "the"). Only those
    of `words` are kept as they are made, as all of them are tens of thousands."""
    once = _slips_of(word) | _deletes(word)
    twice = {w for first in once for w in _slips_of(first) | _deletes(first) if w in words}
    weight = EDIT_WEIGHTS["two slips"]
    return {w: weight for w in twice - once - {word} if len(w) >= len(word) - 1}


def _deletes(word: str) -> set[str]:
    """`word` less one letter: what it was when that letter was typed too many ("ois" for
    "is", "myu" for "my", "inh" for "in": real misspellings, not only keyboard slips)."""
    return {word[:i] + word[i + 1 :] for i in range(len(word))} - {word}


def _slips_of(word: str) -> set[str]:
    """The words `word` is one keyboard slip of (mt.text.casual makes the same four): a key
    next to the one meant, a letter dropped, a letter doubled, two letters swapped. Narrower
    than `_weighted_edits`, for guesses that have less to go on ("seq" is no slip of "see")."""
    return _moved(word) | _keys_beside(word)


def _keys_beside(word: str) -> set[str]:
    """`word` with one letter typed for the key beside it put back."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    return {a + c + b[1:] for a, b in splits if b for c in NEIGHBOURS.get(b[0], "")} - {word}


def _moved(word: str) -> set[str]:
    """`word` with a dropped letter, a doubled one or two swapped ones put right."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    undoubled = {a + b[1:] for a, b in splits if b and a[-1:] == b[:1]}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    dropped = {a + c + b for a, b in splits for c in string.ascii_lowercase}
    return (undoubled | swaps | dropped) - {word}


def normalizer_to_json(normalizer: Normalizer) -> dict[str, object]:
    """The normaliser's tables as JSON (mt.storage.derived keeps them so that start-up skips
    from_stats): its sets as sorted lists, each table as its keys joined by newlines beside a
    list of its values, which reads back in about half the time of a JSON object (89,103 pairs:
    53 against 95 ms on a 2-core AVX2 EPYC), the larger part of a casual line's start-up."""
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
