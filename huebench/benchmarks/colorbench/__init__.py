"""ColorBench (Liang et al., NeurIPS 2025): colour perception, reasoning and robustness of VLMs."""
