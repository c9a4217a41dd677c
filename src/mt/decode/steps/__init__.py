"""Translation as a sequence of small steps, each built once from the frozen TranslateOptions and
run in order by steps/pipeline.py: segment (with normalise), first words, mask (glossary terms,
then protected spans and names, swapped for stand-ins), search, keep the terms (a lost stand-in
searched again, or the text translated around its terms), restore, judge. Each step's `apply`
goes toward the model and its `reverse` back, as in eole's transforms.
"""
