"""Stage 3, a run or export -> text and scores: search, engines, the Translator, evaluation."""
