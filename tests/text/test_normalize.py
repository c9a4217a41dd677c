"""Normalising casual input: each step puts back what casual typing lost, clean text is left as
it is, and the statistics behind it round-trip through words.tsv."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterable
from pathlib import Path

import pytest

from mt.data.prepare.synthetic import is_synthetic, tagged
from mt.decode.run_tables import word_stats_for
from mt.errors import MtError
from mt.text.normalize import (
    DEFAULT_STEPS,
    MAX_TWO_SLIPS,
    STEPS,
    Normalizer,
    normalizer_from_json,
    normalizer_to_json,
)
from mt.text.wordstats import (
    NO_WORD_STATS,
    build_word_stats,
    read_word_stats,
    start_keys,
    word_stats_of_part,
    write_word_stats,
)

TRAINING = [
    *(["I don't know where Tom is.", "I'm sure Tom's car is red.", "Where is Mary?"] * 10),
    *(["Where are you going?", "Do you know Tom?", "It's late.", "Its color is red."] * 5),
    *(["We're late.", "They were late.", "We were happy.", "Mary's house is big."] * 3),
    *(["Do it now.", "The weather is nice today.", "I'll tell you."] * 4),
    *(["Tom is ill.", "Tom was ill.", "He was ill.", "Tom went home yesterday."] * 3),
]
STATS = build_word_stats(TRAINING)
ALL = Normalizer.from_stats(STATS, frozenset(STEPS))
DEFAULT = Normalizer.from_stats(STATS)


def trained_on(training: list[str], steps: Iterable[str] = DEFAULT_STEPS) -> Normalizer:
    """The normaliser of these training sentences' statistics, with `steps`."""
    return Normalizer.from_stats(build_word_stats(training), frozenset(steps))


def only(step: str) -> Normalizer:
    return Normalizer.from_stats(STATS, frozenset([step]))


def test_apostrophes_come_back_where_the_training_english_always_writes_them() -> None:
    assert only("apostrophes")("i dont know") == "i don't know"
    assert only("apostrophes")("im sure toms car is red") == "i'm sure tom's car is red"
    assert only("apostrophes")("its color is red") == "its color is red"  # "its" is a word too
    assert only("apostrophes")("were late") == "we're late"  # no training sentence starts "were"
    assert only("apostrophes")("ill tell you") == "i'll tell you"  # "ill" never comes first
    assert only("apostrophes")("tom is ill") == "tom is ill"


def test_names_i_and_the_first_word_get_their_capitals() -> None:
    assert only("case")("where is tom") == "Where is Tom"
    assert only("case")("i know tom and mary") == "I know Tom and Mary"
    assert only("case")("i'm here") == "I'm here"


def test_final_punctuation_is_a_question_mark_when_the_sentence_starts_like_one() -> None:
    assert only("punctuation")("where are you going") == "where are you going?"
    assert only("punctuation")("do you know him") == "do you know him?"
    assert only("punctuation")("do it now") == "do it now."
    assert only("punctuation")("the weather is nice  ") == "the weather is nice.  "
    assert only("punctuation")('He said "no"') == 'He said "no"'


def test_a_typo_of_a_frequent_word_is_corrected_and_an_unknown_word_kept() -> None:
    assert only("typos")("whree is tom") == "where is tom"
    assert only("typos")("i dnot know") == "i don't know"  # a slip of a contraction
    assert only("typos")("xylophone") == "xylophone"


def test_a_real_english_word_the_training_never_uses_is_not_taken_for_a_slip() -> None:
    # "heed" and "wire" are one edit from "need"/"where"-like training words, but are words.
    training = [*TRAINING, *(["I need it.", "I need you."] * 6), *(["We were there."] * 6)]
    normalizer = trained_on(training, STEPS)
    assert normalizer("tom must heed it") == "Tom must heed it."
    assert normalizer("tom must neeed it") == "Tom must need it."


def test_a_three_letter_slip_is_put_right_only_as_a_keyboard_slip_of_a_frequent_word() -> None:
    training = [*TRAINING, *(["The dog is here.", "I see the cat."] * 30)]
    normalizer = trained_on(training, ["typos"])
    assert normalizer("where is teh dog") == "where is the dog"  # two letters swapped
    assert normalizer("where is yhe dog") == "where is the dog"  # a key next to "t"
    assert normalizer("where is seq") == "where is seq"  # "q" is not next to "e": no slip of see
    assert normalizer("where is tom") == "where is tom"  # "tom" is a training word


def test_real_misspellings_a_letter_too_many_a_misplaced_apostrophe_several_slips() -> None:
    # Real typing (benchmarks/text/real_typing.py) has more than our four keyboard slips.
    training = [*TRAINING, *(["The dog is here.", "I see the cat.", "Tom couldn't come."] * 30)]
    training += ["It was here."] * 50
    normalizer = trained_on(training, ["typos"])
    assert normalizer("where ois the dog") == "where is the dog"  # a letter too many
    assert normalizer("tmo is here") == "tom is here"  # a slip of "tom" before "to" less one
    assert normalizer("i dont't know") == "i don't know"  # an apostrophe and a letter too many
    assert normalizer("tom could'nt come") == "tom couldn't come"
    assert normalizer("tthe dog wqs big") == "the dog was big"  # prose once put right
    assert normalizer("wnet home tom") == "wnet home tom"  # still a program's name first


def test_a_slip_is_read_as_the_likeliest_edit_weighed_by_how_often_each_word_is_used() -> None:
    training = [*TRAINING, *(["I know it.", "It is bigger than that."] * 30)]
    training += ["Tell me of that."] * 1100 + ["That is that.", "Foo is a name."] * 50
    normalizer = trained_on(training, ["typos"])
    assert normalizer("the end ofo it") == "the end of it"  # "foo" is a swap, but rare
    assert normalizer("it is bigger tham that") == "it is bigger than that"  # the key beside
    assert normalizer("i nkwo it") == "i know it"  # two letters swapped twice
    assert normalizer("i tath it") == "i that it"  # rather two swaps than a changed letter


def test_two_slips_never_make_a_word_two_letters_shorter() -> None:
    training = [*TRAINING, *(["No, it is not.", "I know."] * 60)]
    normalizer = trained_on(training, ["typos"])
    assert normalizer("i nkow it") == "i know it"
    assert normalizer("i kxwo it") == "i kxwo it"  # "no" is two letters too many away


def test_each_sentence_of_a_line_starts_with_a_capital_and_the_last_decides_its_mark() -> None:
    assert ALL("its late. where is tom") == "It's late. Where is Tom?"
    assert ALL("where is tom. i dont know") == "Where is Tom. I don't know."
    assert ALL("i know tom etc. and mary") == "I know Tom etc. and Mary."  # no sentence end
    assert ALL("tom is ill. where is he") == "Tom is ill. Where is he?"


def test_a_sentence_gets_an_exclamation_mark_where_training_sentences_starting_so_do() -> None:
    training = [*TRAINING, "What a day!", "What a mess!", "What a view!", "What a pity."]
    normalizer = trained_on(training, STEPS)
    assert normalizer("what a nice day") == "What a nice day!"
    assert normalizer("where is tom") == "Where is Tom?"
    assert normalizer("tom went home yesterday") == "Tom went home yesterday."


def test_a_short_sentence_gets_the_mark_that_short_sentences_starting_so_get() -> None:
    # "how" starts questions, but two-word "how" sentences are exclamations: "how lovely",
    # a start no training sentence has, gets theirs; a longer one and "how come" keep "?".
    exclaimed = ["How nice!", "How cute!", "How sweet!", "How kind!", "How come?", "How come?"]
    asked = ["How are you?", "How old is he?", "How did it go?", "How come you're here?"]
    normalizer = trained_on([*TRAINING, *exclaimed, *asked, *asked], STEPS)
    assert normalizer("how lovely") == "How lovely!"
    assert normalizer("how lovely is it") == "How lovely is it?"
    assert normalizer("how come") == "How come?"


def test_start_keys_count_a_short_sentence_under_its_length_too() -> None:
    assert start_keys(["How", "lovely"]) == ["how", "how #2", "how lovely"]
    assert start_keys(["Help"]) == ["help", "help #1"]
    assert start_keys(["How", "are", "you", "today"]) == ["how", "how are"]
    assert start_keys([]) == []


def test_a_lone_word_that_starts_training_sentences_is_casual_english_and_a_name_is_not() -> None:
    training = [*TRAINING, "Help!", "Help me!", "Help us!", "Help yourself."]
    normalizer = trained_on(training, STEPS)
    assert normalizer("help") == "Help!"
    assert normalizer("alacritty") == "alacritty"


def test_a_slip_may_come_first_when_what_it_meant_starts_training_sentences() -> None:
    training = [*TRAINING, *(["Stop moving.", "Stop it now.", "Stop here."] * 20)]
    normalizer = trained_on(training, STEPS)
    assert normalizer("stpo moving") == "Stop moving."
    assert normalizer("wnet home tom") == "wnet home tom"  # "went" starts no sentence


def test_an_acronym_capitalises_a_word_only_where_lower_case_is_rare() -> None:
    training = [*TRAINING, *(["Tell us.", "Help us now."] * 4), *(["The US is big."] * 6)]
    training += ["It is OK now."] * 12 + ["It is ok."]
    normalizer = trained_on(training, ["case"])
    assert normalizer("tell us it is ok") == "Tell us it is OK"


def test_a_common_word_that_technical_text_capitalises_keeps_its_lower_case() -> None:
    # Python's docs write "None", LibreOffice's help "Windows": most of their later uses, but
    # not nearly all, so a casual "none" or "windows" stays as typed; a name keeps its capital.
    technical = ["It returns None.", "It may be None.", "Close all Windows.", "Open Windows now."]
    everyday = ["I like none of them.", "Open the windows."] * 2
    normalizer = trained_on([*TRAINING, *technical * 4, *everyday], ["case"])
    assert normalizer("i like none of them") == "I like none of them"
    assert normalizer("close the windows") == "Close the windows"
    assert normalizer("where is tom") == "Where is Tom"


def test_a_common_word_gets_its_capital_beside_a_name_it_belongs_to() -> None:
    # "states" is "States" in most of its later uses, as "the United States": capitalised
    # beside "united" (capitalised in all of them), the pair the training has, and nowhere else.
    names = ["Tom saw the United States.", "The United States is big.", "Leave the United States."]
    training = [*TRAINING, *names, "The states agree.", "Some states voted."]
    normalizer = trained_on(training, ["case"])
    assert normalizer("we saw the united states") == "We saw the United States"
    assert normalizer("some states voted") == "Some states voted"


def test_a_name_used_twice_and_never_in_lower_case_gets_its_capital() -> None:
    training = [*TRAINING, "He lives in Morocco.", "Morocco is far.", "We saw Morocco."]
    normalizer = trained_on(training, ["case"])
    assert normalizer("i am from morocco") == "I am from Morocco"


def test_a_tag_or_a_question_after_a_comma_makes_the_line_a_question() -> None:
    training = [*TRAINING, *(["Isn't he tall?", "Isn't it late?", "What would you say?"] * 3)]
    training += ["What would I do without you?", "She left, which was sad."]
    training += ["Which is yours?", "Which is better?", "Which one?"]
    normalizer = trained_on(training, STEPS)
    assert normalizer("tom is tall, isn't he") == "Tom is tall, isn't he?"
    assert normalizer("if you won, what would you do") == "If you won, what would you do?"
    # A longer clause needs its first two words to start questions: no relative clause does.
    assert normalizer("she left, which was sad") == "She left, which was sad."
    assert normalizer("where is tom, mary") == "Where is Tom, Mary?"  # never the reverse


def test_a_longer_slip_of_a_word_the_training_lacks_is_put_right_from_the_dictionary() -> None:
    typos = frozenset(["typos"])
    normalizer = Normalizer.from_stats(STATS, typos)
    assert normalizer("tom is in the gaveyard") == "tom is in the graveyard"
    assert normalizer("tom uses numpy") == "tom uses numpy"  # "lumpy" is not common enough
    # Without the training English (an old run whose data is gone) the dictionary decides nothing.
    unknowing = Normalizer.from_stats(NO_WORD_STATS, typos)
    assert unknowing("tom is in the gaveyard") == "tom is in the gaveyard"


def test_slips_are_put_right_only_in_lines_typed_without_care_and_only_in_free_words() -> None:
    assert ALL("whree is tom") == "Where is Tom?"
    assert ALL("Whree is Tom?") == "Whree is Tom?"  # a capital: the writer took care
    assert ALL("whree is tom.") == "Whree is Tom."  # final punctuation too
    assert ALL("tom is at whree(x) now") == "Tom is at whree(x) now."  # glued to a bracket


def test_a_real_word_that_starts_a_sentence_gets_the_apostrophe_training_always_gives_it() -> None:
    training = [*TRAINING, *(["I'll go.", "I'll help you."] * 5)]
    normalizer = trained_on(training)
    assert normalizer("ill help you") == "I'll help you."  # "Ill" never starts a sentence
    assert normalizer("tom is ill") == "Tom is ill."  # not first: the word "ill"
    assert normalizer("its color is red") == "Its color is red."  # "Its" starts half of them


def test_a_real_word_gets_its_apostrophe_where_its_neighbours_say_it_is_a_contraction() -> None:
    training = [*TRAINING, *(["I think it's late.", "I know it's true.", "We're here."] * 6)]
    training += ["The dog wagged its tail.", "The bird lost its way.", "We were here."] * 6
    normalizer = trained_on(training, ["apostrophes"])
    assert normalizer("i think its true") == "i think it's true"
    assert normalizer("the dog lost its tail") == "the dog lost its tail"
    assert normalizer("were here") == "we're here"
    assert normalizer("they were late") == "they were late"
    # Statistics written before the pairs: only a first word is decided, by how sentences start.
    stats = build_word_stats(training)
    unpaired = Normalizer.from_stats(dataclasses.replace(stats, pairs={}), frozenset(STEPS))
    assert unpaired("i think its true") == "I think its true."


def test_a_line_with_one_slip_is_still_casual_english_but_not_a_command() -> None:
    training = [*TRAINING, *(["git status", "git commit", "Tom went home."] * 6)]
    normalizer = trained_on(training, STEPS)
    assert normalizer("tom wnet home") == "Tom went home."
    assert normalizer("wnet home tom") == "wnet home tom"  # a first unknown word: a program


def test_all_steps_together_undo_the_casual_variant() -> None:
    assert DEFAULT("im sure toms car is red") == "I'm sure Tom's car is red."
    assert DEFAULT("where is mary") == "Where is Mary?"
    assert ALL("i dont know whree tom is") == "I don't know where Tom is."


def test_urls_code_and_paths_are_copied_as_they_are() -> None:
    assert ALL("``tom`` is late") == "``tom`` is late."  # a span first: no capital after it
    assert ALL("www.tom.com is down") == "www.tom.com is down."
    assert ALL("tom dont open https://x.org/dont") == "Tom don't open https://x.org/dont"
    assert ALL("tom uses `whree` and ~/tom/dont.txt") == "Tom uses `whree` and ~/tom/dont.txt"


def test_command_lines_stay_as_typed_and_short_casual_english_does_not() -> None:
    commands = ["git status", "git commit", "git cola --prompt", "docker image rm"] * 3
    normalizer = Normalizer.from_stats(build_word_stats([*TRAINING, *commands]))
    assert normalizer("git status") == "git status"  # the training starts lines with "git"
    assert normalizer("git cola --prompt") == "git cola --prompt"  # options: a command
    assert normalizer("alacritty") == "alacritty"  # a lone unknown word
    assert normalizer("tom went home") == "Tom went home."  # no function word, all known
    assert normalizer("its late") == "It's late."


def test_clean_sentences_come_out_unchanged() -> None:
    clean = [*set(TRAINING), "Mary and Tom were ill.", 'He said "Go home."', "Thank you!"]
    clean += ["Its owner is Tom.", "I asked Tom where he was.", "Xylophones are loud."]
    for normalizer in (DEFAULT, ALL):
        assert [normalizer(text) for text in clean] == clean


def test_a_line_with_capitals_and_final_punctuation_comes_out_byte_for_byte() -> None:
    # A corpus where "Let's" and "can't" dominate: a casual "lets" or "cant" gets its apostrophe,
    # a careful line keeps the verb "lets" and the noun "cant".
    training = [*TRAINING, *(["Let's go.", "Let's eat.", "I can't swim.", "Tom can't come."] * 60)]
    training += ["She lets him go.", "The cant of the hill."]
    lets = trained_on(training, STEPS)
    assert lets("lets go") == "Let's go."
    assert lets("i cant swim") == "I can't swim."
    careful = ["This lets you choose the file.", "The cant of the hill.", "Tom is ill!"]
    careful += ["Where is the station, tom?", "Im sure Tom knows.", "I dont know whree (Tom) is."]
    careful += ['He said "it lets you go."', "It's nice...", "Use it so: "]
    for normalizer in (lets, DEFAULT):
        assert [normalizer(text) for text in careful] == careful


def test_the_statistics_round_trip_through_words_tsv(tmp_path: Path) -> None:
    write_word_stats(tmp_path / "words.tsv", STATS)
    assert read_word_stats(tmp_path / "words.tsv") == STATS
    assert word_stats_for(tmp_path) == STATS
    assert STATS.spellings["Tom"].later > 0 and STATS.starts["where is"].questions == 10
    assert STATS.pairs["<s> it's"] == 5 and STATS.pairs["its color"] == 5


def test_words_tsv_written_before_the_exclamations_is_read_with_none(tmp_path: Path) -> None:
    stats = build_word_stats([*TRAINING, "What a day!", "What a mess!"])
    write_word_stats(tmp_path / "words.tsv", stats)
    lines = (tmp_path / "words.tsv").read_text(encoding="utf-8").split("\n")
    start = lines.index("start\tsentences\tquestions\texclamations")
    pairs = lines.index("pair\tcount")
    old = [
        line.rsplit("\t", 1)[0] if start <= i < pairs - 1 else line for i, line in enumerate(lines)
    ]
    (tmp_path / "words.tsv").write_text("\n".join(old), encoding="utf-8")
    read = read_word_stats(tmp_path / "words.tsv")
    assert read.starts["what a"] == dataclasses.replace(stats.starts["what a"], exclamations=0)
    assert stats.starts["what a"].exclamations == 2


def test_a_part_is_counted_once_a_sentence_and_without_its_back_translations(
    tmp_path: Path,
) -> None:
    part = tmp_path / "train.tsv"
    lines = ["Tell us.\tDinos.", "Tell us.\tDínoslo.", f"{tagged('The US is big.')}\tEE. UU."]
    part.write_text("".join(f"{line}\n" for line in lines * 3), encoding="utf-8")
    stats = word_stats_of_part(part, machine_made=is_synthetic)
    assert stats == build_word_stats(["Tell us."])
    assert "US" not in stats.spellings


def test_no_word_is_read_inside_a_word_with_other_letters_or_digits() -> None:
    stats = build_word_stats(["François met the 5th man in Málaga."] * 2)
    assert set(stats.spellings) == {"met", "the", "man", "in"}


def test_a_damaged_statistics_file_is_one_clear_error(tmp_path: Path) -> None:
    write_word_stats(tmp_path / "words.tsv", STATS)
    text = (tmp_path / "words.tsv").read_text().replace("\t5\n", "\tfive\n", 1)
    (tmp_path / "words.tsv").write_text(text)
    with pytest.raises(MtError, match=r"words\.tsv line \d+: 'five' is not a count"):
        word_stats_for(tmp_path)
    (tmp_path / "words.tsv").write_text("word\tfirst\tlater\n")
    with pytest.raises(MtError, match="not word statistics"):
        word_stats_for(tmp_path)


def test_a_line_of_dictionary_words_is_casual_english_though_training_lacks_one() -> None:
    # "swore" is in no training sentence: before, "tom swore" passed for a name or a command.
    assert DEFAULT("tom swore") == "Tom swore."
    assert DEFAULT("tom uses numpy") == "tom uses numpy"  # "uses" and "numpy" are unknown here


def test_a_number_that_ends_the_line_still_gets_the_final_mark() -> None:
    assert DEFAULT("where is tom 2") == "Where is Tom 2?"
    assert DEFAULT("it's 3:10") == "It's 3:10."


def test_the_neighbours_decide_which_word_a_slip_meant() -> None:
    training = [*TRAINING, *(["I like my work."] * 20), *(["Tom will walk home."] * 6)]
    normalizer = trained_on(training, ["typos"])
    assert normalizer("tom will wolk home") == "tom will walk home"  # "work" is used more
    assert normalizer("i like my wolk") == "i like my work"


def test_a_first_word_slip_is_read_beside_the_word_after_it() -> None:
    # Alone, "dake" is likelier "cake" (a key beside); beside "care" it is "take", which starts
    # training sentences, so the line is casual English.
    training = [*TRAINING, *(["Take care."] * 30), *(["I like cake."] * 5)]
    assert trained_on(training)("dake care") == "Take care."


def test_a_line_of_slips_a_typist_makes_is_casual_english_but_not_of_changed_letters() -> None:
    training = [*TRAINING, *(["Thanks a lot."] * 10), *(["Try again."] * 10)]
    normalizer = trained_on(training)
    assert normalizer("tthanks agani") == "Thanks again."  # a letter doubled, two swapped
    assert normalizer("thonks agein") == "thonks agein"  # a changed letter in each: not sure


def test_a_lone_slip_of_a_word_that_starts_training_sentences_is_casual_english() -> None:
    training = [*TRAINING, *(["Stop moving.", "Stop it now.", "Stop here."] * 20)]
    assert trained_on(training)("stpo") == "Stop."


def test_the_normaliser_round_trips_through_its_cached_json() -> None:
    # mt.storage.derived keeps this JSON: what comes back must normalise exactly as what was built,
    # tables of one empty key and empty tables included.
    built = trained_on([*TRAINING, "How nice!", "How cute!", "How kind!"], STEPS)
    back = normalizer_from_json(json.loads(json.dumps(normalizer_to_json(built))))
    assert back == built
    assert back("how lovely. im sure tom is ill") == built("how lovely. im sure tom is ill")
    odd = dataclasses.replace(built, marks={"": "!"}, pairs={})
    assert normalizer_from_json(json.loads(json.dumps(normalizer_to_json(odd)))) == odd


def test_a_word_longer_than_any_it_could_be_a_slip_of_is_left_as_it_is_at_once() -> None:
    """Two edits reach no known word from it: it is no slip, and no candidate is made (the
    two-slip candidates of a 1,000-letter word ended in a MemoryError)."""
    normalizer = trained_on(TRAINING, ["typos"])
    for line in ("i saw " + "a" * 100_000, "i saw " + "ab'" * 30_000 + "t"):
        started = time.perf_counter()
        assert normalizer(line) == line
        assert time.perf_counter() - started < 10


def test_two_slips_are_read_only_in_words_of_up_to_max_two_slips_letters() -> None:
    training = [*TRAINING, *(["The international conference."] * 60)]
    normalizer = trained_on(training, ["typos"])
    word = "international"  # 13 letters: one edit is read, two are not
    assert len(word) == MAX_TWO_SLIPS + 1
    assert normalizer("i saw the itnernational one") == "i saw the international one"
    assert normalizer("i saw the itnernatoinal one") == "i saw the itnernatoinal one"
    assert normalizer("i saw the cnoferecne") == "i saw the conference"  # 10 letters, two swaps
