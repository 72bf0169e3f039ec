"""The syntax layer: libcst traversal without rebuilding (walk), node helpers, rewrite builders, noqa comments."""
