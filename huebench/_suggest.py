"""Did-you-mean suggestions for unknown names (colours, systems, models, benchmarks)."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable


def did_you_mean(
    word: str,
    candidates: Iterable[str],
    *,
    n: int = 3,
    cutoff: float = 0.6,
    key: Callable[[str], str] = str.lower,
) -> list[str]:
    """The closest candidates to ``word`` (compared after ``key``), best first."""
    by_key: dict[str, str] = {}
    for cand in candidates:
        by_key.setdefault(key(cand), cand)
    matches = difflib.get_close_matches(key(word), list(by_key), n=n, cutoff=cutoff)
    return [by_key[m] for m in matches]


def suggestion_text(
    word: str,
    candidates: Iterable[str],
    *,
    n: int = 3,
    cutoff: float = 0.6,
    key: Callable[[str], str] = str.lower,
) -> str:
    """ " Did you mean 'x' or 'y'?" or an empty string when nothing is close (options: :func:`did_you_mean`'s)."""
    matches = did_you_mean(word, candidates, n=n, cutoff=cutoff, key=key)
    if not matches:
        return ""
    quoted = [repr(m) for m in matches]
    joined = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]
    return f" Did you mean {joined}?"
