"""The benchmarks: each one's data building, evaluation and metrics live in its own folder."""
