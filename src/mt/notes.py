"""Notes: something mt did on its own that its user should hear of, though nothing failed (a
damaged cache file made again). They go to the `mt` logger at WARNING, so that a library user
who configured nothing gets one line on stderr from Python's last-resort handler, one who
configured logging gets them where the rest goes, and the command line shows each as one
`note:` line on its console (mt.cli.common). No print here: a library must not write to a
stream its caller owns.
"""

from __future__ import annotations

import logging

LOGGER = logging.getLogger("mt")


def note(message: str) -> None:
    """Tell the user `message`: one line, which names the file and says what was done or what to
    do."""
    LOGGER.warning(message)
