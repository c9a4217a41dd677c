"""The release recipe's data steps (`make model`): our splits of the shared data by document
(domain_split, general_split) and the held-out files the release model is chosen and tested on
(model_parts). Each is also a command: `python -m mt.recipes.domain_split --help`."""
