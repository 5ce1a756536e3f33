"""Run the CPU performance suite and rewrite docs/performance.md with the figures.

    python perf/run_all.py

Runs ``bench_color.py`` and ``bench_harness.py`` (each measures its ratios side by side in one run),
``bench_scoring_scale.py`` on 2,000 images (scoring with 1 and 2 worker processes, memory, and the
projected wall time of the full suite on a 16-core machine, with how it was made) and, when CUDA is
available, ``gpu_throughput.py``.
"""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOC = HERE.parent / "docs" / "performance.md"


def _run(script: str, *args: str) -> str:
    proc = subprocess.run([sys.executable, str(HERE / script), *args], capture_output=True, text=True, check=True)
    return "\n".join(line for line in proc.stdout.splitlines() if line.strip())


def main() -> None:
    import numpy as np

    color = _run("bench_color.py", "--repeat", "3")
    harness = _run("bench_harness.py")
    scale = _run("bench_scoring_scale.py", "--images", "2000", "--repeat", "2")
    try:
        import torch

        gpu = _run("gpu_throughput.py") if torch.cuda.is_available() else None
    except ImportError:
        gpu = None
    machine = f"{platform.machine()}, {platform.processor() or 'cpu'}, Python {platform.python_version()}, NumPy {np.__version__}"
    text = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    head = text.split("<!-- figures -->")[0] if "<!-- figures -->" in text else text
    body = [
        "<!-- figures -->",
        f"## Latest figures ({dt.date.today().isoformat()}, {machine})",
        "",
        "Command: `python perf/run_all.py`",
        "",
        "### Colour pipeline (`perf/bench_color.py`)",
        "",
        "```",
        color,
        "```",
        "",
        "### Harness (`perf/bench_harness.py`)",
        "",
        "```",
        harness,
        "```",
        "",
        "### Scoring at scale and the full-suite projection (`perf/bench_scoring_scale.py --images 2000 --repeat 2`)",
        "",
        "```",
        scale,
        "```",
        "",
        "### GPU (`perf/gpu_throughput.py`)",
        "",
        "```\n" + gpu + "\n```" if gpu else "Not run: no CUDA device on the machine that ran the suite.",
        "",
    ]
    DOC.write_text(head.rstrip() + "\n\n" + "\n".join(body), encoding="utf-8")
    print(DOC.read_text(encoding="utf-8").split("<!-- figures -->")[1])


if __name__ == "__main__":
    main()
