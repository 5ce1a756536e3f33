"""Imported first by the fork server of :mod:`huebench.pool`, before NumPy and numba: every worker
forked from it runs each numeric library on one thread, since the workers are the parallelism.
Never imported by the run's own process."""

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_name] = "1"
