"""How well models translate: a recipe trained and scored, architectures, domains, general text
beside Apertium."""
