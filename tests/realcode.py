"""The real-code corpus for the slow tests: the benchmark's corpus (benchmarks/corpus.py), one copy.

    python benchmarks/corpus.py     # download on first use, print what is in it

gluoncv 0.10.5.post0 (wheel), gluonnlp 0.10.0 (sdist) and mxnet 1.9.1 (wheel, Python sources only),
fetched into ``benchmarks/.corpus/`` (git-ignored) without building anything (benchmarks/corpus.py).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("hylint_benchmarks_corpus", ROOT / "benchmarks" / "corpus.py")
_corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_corpus)

SOURCES = _corpus.SOURCES
ensure_corpus = _corpus.ensure_corpus
corpus_files = _corpus.corpus_files
