"""The one exception type that reaches the user as a single line instead of a traceback."""


class MtError(Exception):
    """A problem the user can fix (bad file, bad flag, incomplete directory); the message says it.

    ``exit_code`` 2 means bad input or usage, 1 a failure while running.
    """

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code
