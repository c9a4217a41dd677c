"""Translation as a sequence of small steps, each built once from the frozen TranslateOptions:

    normalise -> segment   steps/segment.py  a line cut into sentences (each normalised) and
                                             pieces that fit the model, the spacing kept
    glossary -> protect    steps/mask.py     terms (steps/terms.py), then spans and names
                                             (steps/protect.py), swapped for stand-ins
    search                 steps/search.py   pieces cleaned, encoded, batched and searched
    keep the terms         steps/keep_terms.py  a lost stand-in searched again, or the text
                                             translated around its terms
    restore                steps/mask.py     the stand-ins put back
    judge                  steps/judge.py    confidence and flags of each line

steps/pipeline.py runs them in that order; mt.decode.translator.Translator is the object callers
hold. Each step's `apply` goes toward the model and its `reverse` back, as in eole's transforms.
"""
