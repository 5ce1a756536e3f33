"""Keep secrets out of everything huebench records or shows (config.json, records, reports, logs).

Three tools, used wherever text may carry a credential:

* :func:`register_secret` adds a value (an API key, a password) to a process-wide set; it is
  thread-safe and ignores empty and very short values (fewer than :data:`MIN_SECRET_LENGTH`
  characters), which would otherwise blank out ordinary words.
* :func:`redact` returns the text with every registered secret replaced by ``***``, as are
  ``Bearer <token>`` credentials, the ``user:password@`` part of URLs and the values of
  secret-looking query parameters (``?api_key=…``, ``&token=…``).
* :func:`strip_url_credentials` returns a URL fit for recording: no ``user:password@`` and the
  values of secret-looking query parameters replaced by ``***``.

Secrets are also found in the spellings in which they commonly come back: percent-encoded (in a
URL) and JSON-escaped (in an error body).
"""

from __future__ import annotations

import json
import re
import threading
import urllib.parse

__all__ = ["MASK", "MIN_SECRET_LENGTH", "redact", "register_secret", "register_url_secrets", "strip_url_credentials"]

#: what a secret is replaced with
MASK = "***"
#: values shorter than this are not registered (too likely to occur by chance in other text); a
#: registered key is masked however ordinary the text around it: leaking it is the worse mistake
MIN_SECRET_LENGTH = 4
#: a text that ends with this much of a secret's beginning (or starts with its end) has it cut
#: in half — a body read up to a byte limit, a message shortened — and that part is masked too
MIN_PARTIAL = 6

_lock = threading.Lock()
_secrets: set[str] = set()
#: registered spellings, longest first (so a secret containing another is masked whole)
_ordered: tuple[str, ...] = ()

# names of query parameters whose values are secrets: key, api_key, api-key, apikey, x-api-key,
# token, access_token, secret, client_secret, password, sig, signature, auth, credential, …
_SECRET_PARAM = re.compile(
    r"(?:.*[_.-])?(?:key|apikey|token|secret|password|passwd|pwd|sig|signature|auth|authorization|credentials?)",
    re.IGNORECASE,
)
# "Bearer <token>" (tokens of 8 characters or more: "bearer of" stays), and the value of an
# Authorization header whatever its scheme ("Authorization: Basic dXNlcjpwYXNz")
_BEARER = re.compile(r"\b(Bearer\s+)[A-Za-z0-9._~+/=:-]{8,}", re.IGNORECASE)
_AUTH_HEADER = re.compile(
    r"\b((?:Proxy-)?Authorization['\"]?\s*[:=]\s*['\"]?)(?:[A-Za-z]+\s+)?[^\s'\",}]+", re.IGNORECASE
)
# scheme://userinfo@ — userinfo is everything up to the last '@' before the host ends
_USERINFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^/\s?#@'\"<>]*(?:@[^/\s?#@'\"<>]*)*@")
_QUERY_PARAM = re.compile(r"([?&;])([^=&;#\s'\"<>]+)=([^&;#\s'\"<>]*)")


def _spellings(value: str) -> set[str]:
    out = {value, urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value, safe="")}
    out.add(json.dumps(value)[1:-1])  # as it appears inside a JSON string
    out.add(json.dumps(value)[1:-1].replace("/", "\\/"))  # JSON writers that escape the solidus
    return {s for s in out if len(s) >= MIN_SECRET_LENGTH}


def register_secret(value: str | None) -> None:
    """Remember ``value`` as a secret that :func:`redact` masks from now on (in every thread)."""
    global _ordered
    if not value or not isinstance(value, str) or len(value) < MIN_SECRET_LENGTH:
        return
    with _lock:
        if value in _secrets:
            return
        _secrets.add(value)
        spellings = set(_ordered) | _spellings(value)
        _ordered = tuple(sorted(spellings, key=lambda s: (-len(s), s)))


def register_url_secrets(url: str) -> None:
    """Register the credentials a URL carries: its ``user:password@`` part and the values of its
    secret-looking query parameters (``?api_key=…``), as given and percent-decoded."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        for value in (password if colon else user,):  # "token@host" puts the secret in the user part
            register_secret(value)
            register_secret(urllib.parse.unquote(value))
    for part in parts.query.split("&") if parts.query else ():
        name, eq, value = part.partition("=")
        if eq and value and _SECRET_PARAM.fullmatch(urllib.parse.unquote_plus(name)):
            register_secret(value)
            register_secret(urllib.parse.unquote_plus(value))


def _mask_cut(out: str) -> str:
    """Mask a secret cut in half at either end of ``out``."""
    for secret in _ordered:
        for k in range(min(len(secret) - 1, len(out)), MIN_PARTIAL - 1, -1):
            if out.endswith(secret[:k]):
                out = out[:-k] + MASK
                break
        for k in range(min(len(secret) - 1, len(out)), MIN_PARTIAL - 1, -1):
            if out.startswith(secret[-k:]):
                out = MASK + out[k:]
                break
    return out


def _mask_query(match: re.Match[str]) -> str:
    sep, name, value = match.groups()
    if value and _SECRET_PARAM.fullmatch(urllib.parse.unquote_plus(name)):
        return f"{sep}{name}={MASK}"
    return match.group(0)


def redact(text: object) -> str:
    """``text`` (made a string) with registered secrets, bearer tokens, URL userinfo and
    secret-looking query values replaced by ``***``."""
    out = text if isinstance(text, str) else str(text)
    for secret in _ordered:  # a snapshot: registering concurrently replaces the tuple, never mutates it
        if secret in out:
            out = out.replace(secret, MASK)
    out = _mask_cut(out)
    out = _AUTH_HEADER.sub(lambda m: f"{m.group(1)}{MASK}", out)
    out = _BEARER.sub(lambda m: f"{m.group(1)}{MASK}", out)
    out = _USERINFO.sub(lambda m: f"{m.group(1)}{MASK}@", out)
    return _QUERY_PARAM.sub(_mask_query, out)


def strip_url_credentials(url: str) -> str:
    """``url`` without ``user:password@`` and with secret-looking query values replaced by ``***``.

    A URL that cannot be parsed is returned through :func:`redact` instead."""
    try:
        parts = urllib.parse.urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
    except ValueError:
        return redact(url)
    query = "&".join(_mask_query_part(p) for p in parts.query.split("&")) if parts.query else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _mask_query_part(part: str) -> str:
    name, eq, value = part.partition("=")
    if eq and value and _SECRET_PARAM.fullmatch(urllib.parse.unquote_plus(name)):
        return f"{name}={MASK}"
    return part
