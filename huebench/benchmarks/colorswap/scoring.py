"""ColorSwap / Winoground scoring: 2×2 score matrices, VLM answer parsing, text/image/group scores.

Conventions (seed 002 §3.1, Winoground): ``s[c][i]`` is the score of caption ``c`` with image
``i``; caption 0 belongs to image 0.

- text score  = s[0][0] > s[1][0] and s[1][1] > s[0][1]   (pick the caption, given an image)
- image score = s[0][0] > s[0][1] and s[1][1] > s[1][0]   (pick the image, given a caption)
- group score = both.

Comparisons are strict: a tie fails, and ties are counted so a report can show them (a model
that outputs constant scores would otherwise look merely "bad").

VLM answers are stored one record per query (the ``rescore`` format)::

    {"example_id": .., "query": "text" | "image", "subject": 0 | 1, "options": [.., ..],
     "correct": 0 | 1, "response": ".."}

For a text query ``subject`` is the image (0 = caption_1's image) and ``options`` the two captions
in the order shown; for an image query ``subject`` is the caption and ``options`` the two image
identifiers in the order shown. ``correct`` indexes ``options``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from huebench.stats import paired_bootstrap

__all__ = [
    "IMAGE_PROMPT",
    "ITM_CHANCE",
    "TEXT_PROMPT",
    "VLM_CHANCE",
    "VLM_RECORD_FIELDS",
    "load_vlm_records",
    "parse_answer",
    "score_matrix_outcome",
    "score_vlm_records",
    "summarize_matrices",
]

#: Appendix C, Figure 4 (the logs omit the final full stop of the text prompt; we keep it).
TEXT_PROMPT = (
    "Does this image present (A) {caption_1}, or (B) {caption_2}? Note, you must choose one of the two options."
)
IMAGE_PROMPT = "Which image better aligns with the description {caption}? The first image or the second image? Note you must choose one of two options."

ITM_CHANCE = {"text": 25.0, "image": 25.0, "group": 100.0 / 6.0}
VLM_CHANCE = {"text": 25.0, "image": 25.0, "group": 6.25}


def score_matrix_outcome(s: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Text/image/group correctness of one example's 2×2 matrix, and whether a tie decided it."""
    (s00, s01), (s10, s11) = (float(s[0][0]), float(s[0][1])), (float(s[1][0]), float(s[1][1]))
    text = s00 > s10 and s11 > s01
    image = s00 > s01 and s11 > s10
    ties = {"text": s00 == s10 or s11 == s01, "image": s00 == s01 or s11 == s10}
    return {"text": text, "image": image, "group": text and image, "tie_text": ties["text"], "tie_image": ties["image"]}


def summarize_matrices(
    outcomes: Sequence[Mapping[str, Any]], *, seed: int = 0, n_resamples: int = 1000
) -> dict[str, Any]:
    """Percentages with paired bootstrap 95% intervals, plus tie counts, for ITM/contrastive runs."""
    cols = {k: [100.0 if o[k] else 0.0 for o in outcomes] for k in ("text", "image", "group")}
    out: dict[str, Any] = dict(paired_bootstrap(cols, seed=seed, n_resamples=n_resamples))
    out["ties"] = {
        "text": sum(bool(o["tie_text"]) for o in outcomes),
        "image": sum(bool(o["tie_image"]) for o in outcomes),
    }
    out["chance"] = ITM_CHANCE
    return out


_PUNCT = re.compile(r"[^a-z0-9 ]+")


def _norm(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


# Strong option-letter patterns: "(A)", "A)", "A." / "A:" / "A," at the start, a bare "A",
# "option A", "answer: B", "answer is (B)".
_LETTER_PATTERNS = [
    re.compile(r"\(\s*([ab])\s*\)", re.I),
    re.compile(r"(?:^|[\s\"'])([ab])\)", re.I),
    re.compile(r"^\s*([ab])\s*(?:[.:,]|$)", re.I),
    re.compile(r"\b(?:option|answer|choice)\s*(?:is|:)?\s*\(?([ab])\b", re.I),
]
_ORDINALS = {"first": 0, "second": 1, "1st": 0, "2nd": 1, "left": 0, "right": 1}
_ORDINAL_RE = re.compile(r"\b(first|second|1st|2nd|left|right)\b(?:\s+(?:image|picture|one|option))?", re.I)
_IMAGE_NUMBER_RE = re.compile(r"\b(?:image|picture)\s*(?:#|no\.?\s*)?([12])\b", re.I)


def parse_answer(response: str, options: Sequence[str], query: str) -> int | None:
    """Index of the option a VLM chose, or ``None`` when the answer names both or neither.

    Text queries (options are captions shown as (A) and (B)): option letters in any usual form,
    or a restatement of exactly one caption. Image queries (first/second image): "first",
    "second", "1st", "image 2", "left"/"right" (for side-by-side concatenations), or a bare
    letter. An answer that points at both options, or at none, is unparseable — and wrong.
    """
    text = response.strip()
    if query == "text":
        letters = {m.group(1).lower() for pat in _LETTER_PATTERNS for m in pat.finditer(text)}
        if len(letters) == 1:
            return 0 if letters.pop() == "a" else 1
        if len(letters) > 1:
            return None
        return _restated_option(text, options)
    if query == "image":
        return _first_image_mention(text)
    raise ValueError(f"query must be 'text' or 'image', got {query!r}")


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def _restated_option(text: str, options: Sequence[str]) -> int | None:
    """Which caption an answer without a letter restates, or None.

    Swapped captions hold the same words in another order, so we compare *order*: the answer
    names a caption when every word of that caption occurs in the answer in the caption's order
    (other words may be inserted: "The image presents a pale whiteish duck with a yellow beak"
    restates "pale whiteish duck with yellow beak") and the other caption does not; "a gray cat
    on a gray roof" against "a white cat on a gray roof" / "a gray cat on a white roof" names
    neither. (A looser 80 % word-order match over-credits paraphrases: on the authors' LLaVA-1.5
    logs it lifts the text score 2.3 points above the published 69.67.)
    """
    said = _norm(text).split()
    cover = [(_lcs(said, _norm(o).split()) / max(len(_norm(o).split()), 1)) for o in options]
    best = max(range(len(options)), key=lambda k: cover[k])
    if cover[best] >= 1.0 and all(cover[best] > c for k, c in enumerate(cover) if k != best):
        return best
    return None


def _first_image_mention(text: str) -> int | None:
    """The image an answer commits to first ("The second image better aligns …; in the first
    image …" → second); "the first and second" / "neither" / no ordinal → None."""
    hits = [(m.start(), m.end(), _ORDINALS[m.group(1).lower()]) for m in _ORDINAL_RE.finditer(text)]
    hits += [(m.start(), m.end(), int(m.group(1)) - 1) for m in _IMAGE_NUMBER_RE.finditer(text)]
    if not hits:
        letters = {m.group(1).lower() for pat in _LETTER_PATTERNS for m in pat.finditer(text)}
        return (0 if letters.pop() == "a" else 1) if len(letters) == 1 else None
    hits.sort()
    first = hits[0]
    for start, _, idx in hits[1:]:
        between = text[first[1] : start].lower().split()
        if idx != first[2] and len(between) <= 3 and any(w in ("and", "or", "nor", "both") for w in between):
            return None  # "the first and the second", "first or second image"
    return first[2]


VLM_RECORD_FIELDS = ("example_id", "query", "subject", "options", "correct", "response")


def load_vlm_records(path: str | Path) -> list[dict[str, Any]]:
    """Saved per-query VLM answers (JSONL, :data:`VLM_RECORD_FIELDS`), each field checked; a bad
    value is a one-line error naming the file and line."""
    from huebench.io import InputFileError, read_jsonl

    records = []
    for line, r in read_jsonl(path, required=VLM_RECORD_FIELDS):
        where = f"{path}:{line}"
        if r["query"] not in ("text", "image"):
            raise InputFileError(f'{where}: query must be "text" or "image", got {r["query"]!r}')
        if isinstance(r["subject"], bool) or r["subject"] not in (0, 1):
            raise InputFileError(
                f"{where}: subject must be 0 or 1 (which caption/image of the pair was asked about), got {r['subject']!r}"
            )
        options = r["options"]
        if not isinstance(options, list) or len(options) != 2 or not all(isinstance(o, str) for o in options):
            raise InputFileError(f"{where}: options must be a list of two strings, got {options!r}")
        if isinstance(r["correct"], bool) or r["correct"] not in (0, 1):
            raise InputFileError(
                f"{where}: correct must be 0 or 1 (the index of the right option), got {r['correct']!r}"
            )
        if not isinstance(r["response"], str):
            raise InputFileError(
                f"{where}: response must be the model's text answer, got {type(r['response']).__name__}"
            )
        if not isinstance(r["example_id"], (str, int)) or isinstance(r["example_id"], bool):
            raise InputFileError(f"{where}: example_id must be a string or an integer, got {r['example_id']!r}")
        records.append(r)
    if not records:
        raise InputFileError(f"{path}: no records (the file is empty); expected one JSON object per VLM query")
    return records


def score_vlm_records(
    records: Iterable[Mapping[str, Any]], *, seed: int = 0, n_resamples: int = 1000
) -> dict[str, Any]:
    """Text/image/group percentages over examples from per-query VLM records.

    An example's text score needs both text queries right, its image score both image queries,
    its group score all four (chance 25 / 25 / 6.25). Unparseable answers count as wrong and are
    reported. Examples missing one of the four queries are an error, not silently dropped.
    """
    by_example: dict[Any, dict[tuple[str, int], bool]] = defaultdict(dict)
    unparseable = 0
    n_queries = 0
    for r in records:
        choice = parse_answer(str(r["response"]), r["options"], r["query"])
        unparseable += choice is None
        n_queries += 1
        key = (r["query"], int(r["subject"]))
        if key in by_example[r["example_id"]]:
            raise ValueError(f"example {r['example_id']!r} has two {r['query']} queries for subject {r['subject']}")
        by_example[r["example_id"]][key] = choice is not None and choice == int(r["correct"])
    incomplete = [ex for ex, q in by_example.items() if len(q) != 4]
    if incomplete:
        raise ValueError(
            f"{len(incomplete)} example(s) lack some of the 4 queries (text/image × subject 0/1), e.g. {incomplete[:3]}"
        )
    ids = sorted(by_example, key=str)
    cols = {
        "text": [100.0 * (by_example[e][("text", 0)] and by_example[e][("text", 1)]) for e in ids],
        "image": [100.0 * (by_example[e][("image", 0)] and by_example[e][("image", 1)]) for e in ids],
    }
    cols["group"] = [100.0 * (t > 0 and i > 0) for t, i in zip(cols["text"], cols["image"], strict=True)]
    ci = paired_bootstrap(cols, seed=seed, n_resamples=n_resamples)
    return {
        "text": ci["text"]["value"],
        "image": ci["image"]["value"],
        "group": ci["group"]["value"],
        "n": len(ids),
        "unparseable": 100.0 * unparseable / max(n_queries, 1),
        "unparseable_count": unparseable,
        "ci": {k: [ci[k]["low"], ci[k]["high"]] for k in ("text", "image", "group")},
        "chance": VLM_CHANCE,
    }
