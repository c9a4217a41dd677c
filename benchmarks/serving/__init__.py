"""What a person feels of mt serve and of the shipped model: load, latency, start-up."""
