"""Whether mt holds at size and over time: corpora of millions of pairs, memory of a long run."""
