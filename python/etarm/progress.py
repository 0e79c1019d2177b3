"""Progress of the long steps of a compile, for a terminal.

`etarm compile` on a terminal shows each step (export, calibration with a bar over the
batches, lowering, each partition's backend compiler) and its elapsed time; piped, and for
library callers that do not ask, nothing is written. Code reports through ``current()``.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from typing import IO, Iterator


class Progress:
    """Reports nothing: what piped runs and library callers get."""

    @contextlib.contextmanager
    def step(self, what: str) -> Iterator[None]:
        yield

    def count(self, what: str, done: int, total: int) -> None:
        pass


class TerminalProgress(Progress):
    """A transient line while a step runs, then one line with its time; nested steps indent."""

    BAR_WIDTH = 24

    def __init__(self, stream: IO[str]):
        self.stream = stream
        self.depth = 0

    @contextlib.contextmanager
    def step(self, what: str) -> Iterator[None]:
        label = "  " * self.depth + what
        self._write(f"{label} ...")
        started = time.perf_counter()
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self._write(f"{label:<40} {time.perf_counter() - started:6.2f} s\n")

    def count(self, what: str, done: int, total: int) -> None:
        filled = self.BAR_WIDTH * done // max(total, 1)
        bar = "#" * filled + "." * (self.BAR_WIDTH - filled)
        self._write(f"{'  ' * self.depth}{what} [{bar}] {done}/{total}")

    def _write(self, text: str) -> None:
        self.stream.write("\r\033[K" + text)  # back to the line's start, erase it
        self.stream.flush()


_CURRENT: contextvars.ContextVar[Progress] = contextvars.ContextVar("etarm_progress", default=Progress())


def current() -> Progress:
    return _CURRENT.get()


@contextlib.contextmanager
def reporting_to(progress: Progress) -> Iterator[None]:
    token = _CURRENT.set(progress)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def for_stream(stream: IO[str]) -> Progress:
    """TerminalProgress on a terminal, nothing otherwise."""
    return TerminalProgress(stream) if stream.isatty() else Progress()
