"""The version of mt, written once: a leaf that imports nothing, so any module reads it without
importing the package face (mt/__init__.py, which reaches mt.api and so the stages), and
setuptools reads it without importing mt at all (pyproject.toml)."""

__version__ = "0.1.0"
