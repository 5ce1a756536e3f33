"""huebench: how well do models understand colour? Four benchmarks on one colour-science core."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("huebench")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
