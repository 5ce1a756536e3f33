"""Rainbow (seed 000): colour replacements and swaps over image captions, judged by image-text matching."""
