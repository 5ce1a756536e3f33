"""Known-colour probes of vision models: naming, constancy, contrast, category boundaries (docs/known-colors.md)."""
