"""The release recipe (`make model`): our splits of the shared data by document (domain_split,
general_split) and the held-out files the release model is chosen and tested on (model_parts),
each also a command (`python -m mt.recipes.domain_split --help`); and the recipe itself as
resumable steps (release, built on steps), run by `python -m mt.cli.release`."""
