"""The documents ../shared/data/domains leaves out (held out elsewhere for blind evaluation):

    held_out = int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 100 < 15

with the key of domains/README.md: a .po file's path in python-docs-es, a tldr page's name, a
LibreOffice help page's path below its language folder. Held-out documents are skipped before
they are read, never written under the data root, and the archive that held them is removed once
the files are in place.
"""

from __future__ import annotations

import hashlib

HELD_OUT_PERCENT = 15


def held_out(key: str) -> bool:
    return int(hashlib.sha1(key.encode("utf-8")).hexdigest(), 16) % 100 < HELD_OUT_PERCENT
