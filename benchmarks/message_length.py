"""How long the diagnostics' messages are on the zoo libraries' output (the JSON ``message`` field).

    python benchmarks/message_length.py [--limit 120] [--sources DIR] [--longest 5]

Runs ``hylint check --output-format json`` (one worker, no cache) over each library's package folder under
the zoo's sources (``benchmarks/zoo/.work/sources/<library>/<package>``, made by ``benchmarks/zoo/sources.py``)
and prints, per rule: the count, the median and the longest message length; then the share of all messages
at most ``--limit`` characters, and the ``--longest`` longest messages. Exits 1 when under 90% are within
the limit.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "zoo" / ".work" / "sources"


def packages(sources: Path) -> list[Path]:
    """Every library's package folder: the folders holding an ``__init__.py`` one level under each library."""
    return sorted(folder for library in sorted(sources.iterdir()) if library.is_dir()
                  for folder in library.iterdir() if (folder / "__init__.py").is_file())


def messages(package: Path) -> list[dict]:
    """The diagnostics of `package` as ``hylint check`` prints them in JSON."""
    command = [sys.executable, "-m", "hylint", "check", "--output-format", "json", "--exit-zero", "-q",
               "--no-cache", "-j", "1", str(package)]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout or "[]")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=120)
    parser.add_argument("--sources", type=Path, default=SOURCES)
    parser.add_argument("--longest", type=int, default=5)
    args = parser.parse_args()
    found = [item for package in packages(args.sources) for item in messages(package)]
    by_code: dict[str, list[int]] = defaultdict(list)
    for item in found:
        by_code[item["code"]].append(len(item["message"]))
    print(f"{'rule':8} {'count':>6} {'median':>7} {'max':>5} {'>' + str(args.limit):>6}")
    for code in sorted(by_code):
        lengths = by_code[code]
        over = sum(length > args.limit for length in lengths)
        print(f"{code:8} {len(lengths):6d} {statistics.median(lengths):7.0f} {max(lengths):5d} {over:6d}")
    within = sum(len(item["message"]) <= args.limit for item in found)
    share = within / len(found) if found else 1.0
    print(f"\n{within} of {len(found)} messages ({share:.1%}) are at most {args.limit} characters")
    for item in sorted(found, key=lambda item: -len(item["message"]))[:args.longest]:
        print(f"  {len(item['message'])} {item['code']} {item['message']}")
    return 0 if share >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
