"""Many files: discovery, reading and writing, notebooks, the cache, workers, progress."""
