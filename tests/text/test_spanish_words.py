"""pyspellchecker's Spanish list, as a dictionary's choice of translation asks it."""

from __future__ import annotations

from mt.text.spanish_words import spanish_frequency, without_accents


def test_the_word_in_common_use_outranks_the_rare_sense() -> None:
    assert spanish_frequency("medida") > spanish_frequency("galga") > 0  # "gauge"
    assert spanish_frequency("pista") > spanish_frequency("pasarela")  # "runway"


def test_a_word_the_list_lacks_counts_nothing_and_case_does_not_matter() -> None:
    assert spanish_frequency("zorbláculo") == 0
    assert spanish_frequency("Medida") == spanish_frequency("medida")


def test_accents_go_and_the_tilde_of_n_and_the_case_stay() -> None:
    assert without_accents("Nación, pingüino, ÁRBOL") == "Nacion, pinguino, ARBOL"
    assert without_accents("año") == "año" and without_accents("AÑO") == "AÑO"
