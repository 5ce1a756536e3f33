"""VQA presence questions on top of the VLM capability (GenColorBench §3.4, after DSG)."""

from __future__ import annotations

__all__ = ["PRESENCE_QUESTION"]

#: asked one object at a time (``max_new_tokens=1``) by the GenColorBench pipeline's presence check
PRESENCE_QUESTION = "Is there a {object} in the image? Answer yes or no."
