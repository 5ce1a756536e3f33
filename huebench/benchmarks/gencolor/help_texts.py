"""What the scorer's choices mean, in the words every GenColorBench benchmark and command uses for them.

A light module (no NumPy): ``huebench gencolor``'s module imports it when ``huebench`` starts.
"""

__all__ = ["CANDIDATE_RULE_HELP", "SCORER_HELP", "SCORER_OPTIONS_HELP"]

SCORER_HELP = (
    "huebench (default: lit surface, specular steps, calibration), huebench-rules (the same without its "
    "calibration) or paper (PCA dominant colour over all object pixels)."
)
CANDIDATE_RULE_HELP = (
    "per-metric: each metric's minimum over the candidates (the paper); same: one candidate must pass all three."
)
SCORER_OPTIONS_HELP = (
    "The scorer's settings changed from its defaults, as a JSON object, e.g. '{\"glossy_flat_line\": false}' "
    "(version 27's flat-surface rule); recorded in config.json with every setting (docs/gencolor.md, Scorer)."
)
