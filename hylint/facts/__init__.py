"""The one source of MXNet facts, read by the analysis and by the runtime."""
