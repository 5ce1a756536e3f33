"""huebench: how well do models understand colour? Four benchmarks on one colour-science core."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("huebench")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__", "evaluate", "load_model"]


def __getattr__(name: str):  # lazy: `import huebench` stays light (no torch, no transformers)
    if name == "evaluate":
        from huebench.runs.runner import evaluate

        return evaluate
    if name == "load_model":
        from huebench.models.registry import load_model

        return load_model
    raise AttributeError(f"module 'huebench' has no attribute {name!r}")
