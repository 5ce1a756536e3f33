"""Exception types shared by the whole package.

Every error huebench raises on purpose derives from :class:`HuebenchError`, so a caller
can tell "your input is wrong" (with a message saying what, where and how to fix it)
from a bug. Errors about values also derive from :class:`ValueError`.
"""

from __future__ import annotations


class HuebenchError(Exception):
    """Base class of every error huebench raises deliberately."""


class ColorSpecError(HuebenchError, ValueError):
    """A colour specification (name, hex, rgb(), tuple) could not be understood."""


class UnknownNameError(HuebenchError, ValueError):
    """A name (colour, system, model, benchmark, …) is not known; the message suggests near misses."""
