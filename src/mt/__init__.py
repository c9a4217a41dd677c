"""mt: English-to-Spanish neural machine translation, as a command (`mt`) and as a library.

    import mt
    mt.translate("Where is the train station?")      # a string gives a string
    translator = mt.load()                           # the shipped model, opened once
    translator.translate(["Good morning.", "Thanks!"])  # a list gives a list

What is promised is `__all__` (docs/api.md); everything else may change. Importing mt loads
none of torch, CTranslate2 or the model: the names below are fetched from mt.api when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mt._version import __version__
from mt.errors import MtError

__all__ = [
    "DOCUMENT_FORMATS",
    "Error",
    "ModelEntry",
    "MtError",
    "Scored",
    "Translator",
    "__version__",
    "load",
    "models",
    "translate",
]

Error = MtError
"""The one exception family: a problem the caller can fix, with the command's one-line message."""

if TYPE_CHECKING:
    from mt.api import DOCUMENT_FORMATS, ModelEntry, Scored, Translator, load, models, translate


def __getattr__(name: str) -> Any:
    if name in __all__:
        from mt import api

        return getattr(api, name)
    raise AttributeError(f"module 'mt' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
