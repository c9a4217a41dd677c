"""Benchmarks: run each from the repository root as `python -m benchmarks.GROUP.NAME`; harness.py
holds what they share (README.md lists them)."""
