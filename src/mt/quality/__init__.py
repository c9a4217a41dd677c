"""How far to trust a translation: confidence, flags, and the calibration they are fitted with."""
