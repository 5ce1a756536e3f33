"""The run layer shared by all benchmarks: model-output cache, run folders, records, results."""
