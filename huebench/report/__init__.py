"""HTML reports: per run and across runs (tables, heatmaps, bar charts with intervals)."""
