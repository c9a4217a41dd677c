"""The networks (Transformer, RNN baseline), their loss, device, precision and run directory."""
