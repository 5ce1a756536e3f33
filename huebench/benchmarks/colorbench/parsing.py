"""One answer parser for every model: which option did a free-text answer choose?

Upstream scores proprietary and open models with different rules (the last letter anywhere in the
answer, the last "(X)", or a letter at the start and option texts). huebench reads every answer the
same way, in this order; the first rule that applies decides (docs/colorbench.md, Reading answers):

1. **Empty** — an empty answer chose nothing.
2. **Conclusion** — "the answer is (B)", "Answer: B", "the final answer would be: C", "I choose D",
   "I'd go with (c)", "I think it is C.": the *last* such phrase decides (a chain of thought may weigh options before
   it concludes). After "answer" a bare letter must be a capital ("the answer is a red car" names
   no letter).
3. **Leading letter** — the answer starts with a letter: "B", "b.", "(B)", "[B]", "B) Yellow",
   "B: …", "C is correct" ("A" followed by a word only when the word is "is", "was", "or", … —
   "A red car" is prose; "I" followed by a word is the pronoun).
4. **Named letter** — "option b", "the correct choice is C", "letter: D" (the last one).
5. **Letters in parentheses** anywhere — one letter, or several of which the last sentence holds
   exactly one.
6. **The whole answer is an option's text** — "Yellow", "74", "Cannot tell".
7. **Refusal** — "I cannot tell", "sorry", "unable to determine": wrong, unless it names exactly
   one option that is itself a non-answer ("No answer", "Cannot tell", "None of the above").
8. **Option text** — the answer names exactly one option's text as whole words, ignoring case,
   punctuation and '#', with number words read as digits ("three" = "3"); an option named only
   inside a longer one ("red" in "dark red") or right after a negation ("not red") does not count.

An answer that offers alternatives ("A or B", "(A) and (C)"), names a letter beyond the options
("(E)" of four), or names several option texts chose nothing: it counts as wrong, and the record
says why.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Parsed", "parse_choice"]

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class Parsed:
    """The option an answer chose (an index, or None) and the rule that decided, in words."""

    choice: int | None
    rule: str

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else LETTERS[self.choice]


_PAREN = r"[\(\[]\s*([A-Za-z])\s*[\)\]]"
_NOT_WORD = r"(?![\w'’])"
_CONCLUSIONS = [
    # "the answer is (B)", "Answer: B", "final answer would be: C", "the answer is option D"
    re.compile(
        r"(?i:\banswer\b)[^.\n]{0,24}?(?:(?i:\bis\b|\bwould be\b|\bshould be\b)|[:=])\s*:?\s*"
        r"(?i:(?:option|choice)\s+)?(?:" + _PAREN + r"|([A-Z])" + _NOT_WORD + ")"
    ),
    # "I choose B", "I'd go with (c)", "select option D"
    re.compile(
        r"(?i:\b(?:choose|chose|pick|picked|select|selected|go with|going with)\s+)"
        r"(?i:(?:option|choice)\s+)?(?:" + _PAREN + r"|([A-Z])" + _NOT_WORD + ")"
    ),
    # "I think it is C.", "it must be (b)": a bare capital only where the sentence ends after it
    re.compile(
        r"(?i:\b(?:it is|it's|that is|that's|would be|must be)\s+)(?:" + _PAREN + r"|([A-Z])(?=\s*(?:[.!,;]|$)))"
    ),
    # "option b", "the correct choice is C", "letter: D"
    re.compile(
        r"(?i:\b(?:option|choice|letter)\b)\s*(?:(?i:is)\s+|[:=]\s*)?(?:" + _PAREN + r"|([A-Za-z])" + _NOT_WORD + ")"
    ),
]
_LEADING = [
    re.compile(r"^" + _PAREN),
    re.compile(r"^([A-Za-z])(?=\s*(?:[.:)\]\-–,;!]|$))"),
    re.compile(r"^([B-HJ-Z])(?=\s)"),  # not "I", the pronoun
    re.compile(r"^(A)(?=\s+(?i:is|was|would|should|seems|appears|fits|or|and)\b)"),
]
_ANY_PAREN = re.compile(_PAREN)
#: right after a letter: another letter offered as an alternative
_ALTERNATIVE = re.compile(r"^\s*[\)\]]?\s*(?i:or|and|/|,|&)\s*(?i:option\s+)?[\(\[]?\s*[A-Za-z]\s*[\)\]]?" + _NOT_WORD)
_REFUSAL = re.compile(
    r"\b(?:i\s*(?:cannot|can ?not|can't|am unable|'m unable|am not able|'m not able)|unable to|not possible to|"
    r"impossible to|sorry|as an ai|i don't know|i do not know|not sure|cannot be determined|can't be determined)\b",
    re.I,
)
_NON_ANSWER_OPTION = re.compile(
    r"\b(?:no answer|none|cannot|can ?not|can't|not sure|unknown|impossible|not possible|unable|undetermined)\b", re.I
)
_NEGATIONS = frozenset({"not", "no", "isn't", "isnt", "aren't", "arent", "never", "nor", "neither", "without"})
_NUMBER_WORDS = {
    w: str(k)
    for k, w in enumerate(
        [
            *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
            *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen"),
            *("nineteen", "twenty"),
        ]
    )
}
_SEPARATORS = re.compile(r"[^a-z0-9%.'’]+")


def _clean(response: str) -> str:
    text = re.sub(r"\*\*|__|`", "", str(response))  # markdown emphasis and code marks
    return " ".join(text.split()).strip().strip("\"'“”")


def _tokens(text: str) -> list[str]:
    lowered = re.sub(r"\s+%", "%", text.lower())
    out = []
    for tok in _SEPARATORS.split(lowered):
        tok = tok.strip(".'’")
        if tok:
            out.append(_NUMBER_WORDS.get(tok, tok))
    return out


def _letter(match: re.Match[str]) -> str:
    return next(g for g in match.groups() if g).upper()


def _offers_alternative(text: str, end: int) -> bool:
    return bool(_ALTERNATIVE.match(text[end:]))


def _last(patterns: Sequence[re.Pattern[str]], text: str) -> re.Match[str] | None:
    found = [m for pat in patterns for m in pat.finditer(text)]
    return max(found, key=lambda m: m.start()) if found else None


def _judge_match(text: str, m: re.Match[str], n: int, how: str) -> Parsed:
    if _offers_alternative(text, m.end()):
        return Parsed(None, "offers more than one letter")
    return _judge_letter(_letter(m), n, how)


def _judge_letter(letter: str, n: int, how: str) -> Parsed:
    if letter in LETTERS[:n]:
        return Parsed(LETTERS.index(letter), how)
    return Parsed(None, f"letter {letter} is not one of the options A–{LETTERS[n - 1]}")


def _mentions(tokens: list[str], choices: Sequence[str], only: set[int] | None = None) -> list[int]:
    """The options whose text the answer's tokens name, by the rules of step 7."""
    spans = []  # (start, end, option)
    for k, choice in enumerate(choices):
        if only is not None and k not in only:
            continue
        want = _tokens(choice)
        if not want:
            continue
        for s in range(len(tokens) - len(want) + 1):
            if tokens[s : s + len(want)] == want:
                spans.append((s, s + len(want), k))
    kept = set()
    for s, e, k in spans:
        inside_longer = any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, _ in spans)
        negated = s > 0 and tokens[s - 1] in _NEGATIONS
        if not inside_longer and not negated:
            kept.add(k)
    return sorted(kept)


def parse_choice(response: str, choices: Sequence[str]) -> Parsed:
    """The option ``response`` chose among ``choices`` (lettered A, B, … in order), by the rules in
    this module's docstring."""
    n = len(choices)
    text = _clean(response)
    if not text:
        return Parsed(None, "empty answer")
    conclusion = _last(_CONCLUSIONS[:3], text)
    if conclusion is not None:
        return _judge_match(text, conclusion, n, "a concluding letter ('the answer is B', 'I choose B')")
    for pat in _LEADING:
        m = pat.match(text)
        if m:
            return _judge_match(text, m, n, "letter at the start")
    named_letter = _last(_CONCLUSIONS[3:], text)
    if named_letter is not None:
        return _judge_match(text, named_letter, n, "letter after 'option', 'choice' or 'letter'")
    parens = list(_ANY_PAREN.finditer(text))
    if parens:
        valid = {m.group(1).upper() for m in parens} & set(LETTERS[:n])
        if len(valid) == 1:
            return _judge_letter(valid.pop(), n, "letter in parentheses")
        if not valid:
            return _judge_letter(parens[-1].group(1).upper(), n, "letter in parentheses")
        last_sentence = re.split(r"(?<=[.!?\n])\s", text)[-1]
        final = {m.group(1).upper() for m in _ANY_PAREN.finditer(last_sentence)} & set(LETTERS[:n])
        if len(final) == 1:
            return _judge_letter(final.pop(), n, "letter in parentheses in the last sentence")
        return Parsed(None, "names several letters in parentheses")
    tokens = _tokens(text)
    whole = [k for k, c in enumerate(choices) if _tokens(c) and _tokens(c) == tokens]
    if len(whole) == 1:
        return Parsed(whole[0], "the answer is an option's text")
    if _REFUSAL.search(text):
        non_answers = {k for k, c in enumerate(choices) if _NON_ANSWER_OPTION.search(c)}
        named = _mentions(tokens, choices, only=non_answers)
        if len(named) == 1:
            return Parsed(named[0], "a refusal naming the option that says so")
        return Parsed(None, "refusal")
    named = _mentions(tokens, choices)
    if len(named) == 1:
        return Parsed(named[0], "names one option's text")
    if named:
        return Parsed(None, f"names several options ({', '.join(LETTERS[k] for k in named)})")
    return Parsed(None, "names no option")
