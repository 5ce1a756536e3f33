"""VQA presence questions on top of the VLM capability (GenColorBench §3.4, after DSG)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from huebench.models.base import Capability, Model, VLMQuery

__all__ = ["PRESENCE_QUESTION", "presence_probability"]

PRESENCE_QUESTION = "Is there a {object} in the image? Answer yes or no."


def presence_probability(
    model: Model, images: Sequence[Any], objects: Sequence[str], *, template: str = PRESENCE_QUESTION
) -> list[float]:
    """P(yes) that ``objects[i]`` is in ``images[i]``, asked one object at a time."""
    model.require(Capability.VLM)
    return model.yes_probability(
        [
            VLMQuery((img, template.format(object=obj)), max_new_tokens=1)
            for img, obj in zip(images, objects, strict=True)
        ]
    )
