"""How fast mt trains and translates: training steps, decoding, exports, precisions,
back-translation."""
