"""The models mt knows: a reference (a shipped model's name, a run, an export) resolved into
one ModelInfo, which way a model translates, and a shipped model's card.
"""
