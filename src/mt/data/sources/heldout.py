"""The documents ../shared/data/domains holds out for blind evaluation, with domains/README.md's key
(a .po path, a tldr page name, a help page path); they are skipped before being read:

    held_out = int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 100 < 15
"""

from __future__ import annotations

import hashlib

HELD_OUT_PERCENT = 15


def held_out(key: str) -> bool:
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 100 < HELD_OUT_PERCENT
