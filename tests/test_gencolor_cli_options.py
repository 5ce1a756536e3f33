"""GenColorBench's commands declare flags for the benchmark's options: each flag must be a declared
option of the benchmark it runs, with the same default (so the CLI cannot drift from the API)."""

import inspect

import pytest

from huebench.benchmarks.base import get_benchmark
from huebench.benchmarks.gencolor import cli

#: flags of the run itself (RunOptions), not benchmark options; --device goes to both (the helper
#: models follow the run's device, the benchmark's own default None meaning just that)
RUN_FLAGS = {
    "out", "limit", "seed", "resume", "executor", "ray_address", "workers", "batch_size", "dtype", "model", "vlm",
    "device",
}  # fmt: skip
#: flag name → option name where they differ
RENAMED = {"candidates": "candidate_rule"}


@pytest.mark.parametrize(
    ("command", "bench_name"),
    [
        (cli.score_command, "gencolorbench"),
        (cli.generate_command, "gencolor-generate"),
        (cli.diagnose, "gencolor-diagnostic"),
    ],
)
def test_every_flag_is_a_benchmark_option_with_the_same_default(command, bench_name):
    specs = get_benchmark(bench_name).option_specs()
    checked = 0
    for name, param in inspect.signature(command).parameters.items():
        if name in RUN_FLAGS:
            continue
        option = RENAMED.get(name, name)
        assert option in specs, f"{command.__name__}: --{name} is not an option of {bench_name}"
        default = param.default.default  # a typer.Option's default
        if default is not ... and option != "images":
            expected = specs[option].default
            assert default == expected or (default is None and expected is None) or str(default) == str(expected), (
                f"--{name}: CLI default {default!r}, benchmark default {expected!r}"
            )
        checked += 1
    assert checked >= 3
