"""Linting one source: parsing, regions, the prefilter, the engine (one traversal for all rules), the fix loop."""
