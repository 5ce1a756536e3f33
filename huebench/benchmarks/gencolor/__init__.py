"""GenColorBench (seed 004): colour prompts for text-to-image models, scored perceptually in CIELAB."""
