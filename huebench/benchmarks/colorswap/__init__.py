"""ColorSwap (seed 002): Winoground-style colour swaps for contrastive, ITM-head and generative VLMs."""
