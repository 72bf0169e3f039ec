"""Time hylint against flake8, Fixit 2 and ruff on a real MXNet-Gluon corpus; write benchmarks/RESULTS.md.

    python benchmarks/run.py                  # 3 rounds, Fixit once (it is slow)
    python benchmarks/run.py --rounds 5 --fixit-rounds 2

What it does, in one run:

* builds the corpus on first use (benchmarks/corpus.py: gluoncv 0.10.5.post0, gluonnlp 0.10.0,
  mxnet 1.9.1's Python sources) and copies it to a scratch folder, so caches and the touched file
  never change the downloaded sources; a ``pyproject.toml`` there with empty ``[tool.hylint]``,
  ``[tool.ruff]`` and ``[tool.fixit] root = true`` tables keeps every tool on its defaults;
* installs the peers (flake8, fixit, ruff) into their own virtual environment,
  benchmarks/.venv-peers, on first use;
* runs every measurement once per round, the tools alternating within a round, and reports the min
  and the median of wall time and of CPU time (user + system, the process and all its workers), files
  and lines per second, and peak memory: the max RSS of the largest process (``wait4``) and the peak
  of the summed RSS of the whole process tree (sampled every 20 ms: parallel workers count together).

Measurements (all on the whole corpus, default rules and settings of each tool):

* ``hylint cold``: ``hylint check .`` with the cache folder removed first (a first run; it writes the
  cache); ``hylint cold -j1`` the same with ``--jobs 1``;
* ``hylint warm``: ``hylint check .`` again, nothing changed;
* ``hylint touched``: after one file with ``hybrid_forward`` (the median-sized one) got a new comment
  line: its content changed, so it is analysed again (a ``touch`` alone would be a cache hit: the
  cache keys on content);
* ``hylint fix --diff``: ``hylint check --fix --diff --no-cache .`` (the fix loop on every file);
* ``flake8``: ``flake8 .``; ``fixit``: ``fixit lint .`` (Fixit 2, libcst-based);
* ``ruff --no-cache``: ``ruff check --no-cache .``; ``ruff warm``: ``ruff check .`` with its cache;
  ``ruff touched``: ``ruff check .`` after the same one-file edit.

Ratios, not absolute times, are the figures to quote: the machine is shared and noisy. The CPU-time
ratios are the steadier ones under load.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import corpus  # noqa: E402

PEERS = HERE / ".venv-peers"
WORK = HERE / ".corpus" / "work"
RESULTS = HERE / "RESULTS.md"
PEER_PACKAGES = ["flake8", "fixit", "ruff"]
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


# -- set-up ----------------------------------------------------------------------------------------
def ensure_peers() -> Path:
    bin_dir = PEERS / "bin"
    if not all((bin_dir / tool).exists() for tool in ("flake8", "fixit", "ruff")):
        print("bench: installing flake8, fixit, ruff into benchmarks/.venv-peers", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(PEERS)], check=True)
        subprocess.run([str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *PEER_PACKAGES], check=True)
    return bin_dir


def peer_versions(bin_dir: Path) -> Dict[str, str]:
    out = subprocess.run([str(bin_dir / "python"), "-m", "pip", "list", "--format", "json",
                          "--disable-pip-version-check"], capture_output=True, text=True, check=True).stdout
    versions = {p["name"].lower(): p["version"] for p in json.loads(out)}
    return {name: versions.get(name, "?") for name in ("flake8", "fixit", "ruff", "libcst")}


def prepare_work(source: Path) -> Path:
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.copytree(source, WORK)
    (WORK / "pyproject.toml").write_text("[tool.hylint]\n\n[tool.ruff]\n\n[tool.fixit]\nroot = true\n")
    return WORK


def touched_file(files: Sequence[Path]) -> Path:
    candidates = sorted((f for f in files if "hybrid_forward" in f.read_text(encoding="utf-8", errors="replace")),
                        key=lambda f: (f.stat().st_size, str(f)))
    return candidates[len(candidates) // 2]


# -- one measurement -------------------------------------------------------------------------------
def _tree_rss(root: int) -> int:
    """Summed RSS (bytes) of ``root`` and its descendants, from /proc (0 where /proc is missing)."""
    total = 0
    stack = [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/statm") as handle:
                total += int(handle.read().split()[1]) * PAGE
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    stack.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            continue
    return total


def measure(command: Sequence[str], cwd: Path, env: Dict[str, str], ok_codes=(0, 1)) -> Dict[str, float]:
    peak = [0]
    done = threading.Event()
    errors = open(os.devnull, "w") if os.environ.get("BENCH_QUIET_ERRORS") else None
    start = time.perf_counter()
    proc = subprocess.Popen(list(command), cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE if errors is None else errors)

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_rss(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stderr = proc.stderr.read() if proc.stderr is not None else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok_codes:
        raise SystemExit(f"bench: {' '.join(command)} exited {proc.returncode}:\n{stderr.decode(errors='replace')[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "maxrss_mb": usage.ru_maxrss / 1024,
            "tree_rss_mb": peak[0] / 2 ** 20}


# -- the run ---------------------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fixit-rounds", type=int, default=1, help="Fixit takes minutes: by default once")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args()

    source = corpus.ensure_corpus()
    stats = corpus.statistics(source)
    bin_dir = ensure_peers()
    versions = peer_versions(bin_dir)
    work = prepare_work(source)
    files = corpus.corpus_files(work)
    touched = touched_file(files)
    env = dict(os.environ, PYTHONPATH=str(REPO), NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("CI", None)
    hylint = [sys.executable, "-m", "hylint", "check"]
    cache = work / ".hylint_cache"
    edits = [0]

    def touch() -> None:
        edits[0] += 1
        with open(touched, "a", encoding="utf-8") as handle:
            handle.write(f"# bench edit {edits[0]}\n")

    def refresh_ruff() -> None:  # untimed: the touched file is in ruff's cache again
        measure([str(bin_dir / "ruff"), "check", "."], work, env)

    # warm-up: byte-compile hylint (as an installed copy is: with PYTHONDONTWRITEBYTECODE in the environment,
    # as on this machine, every run would compile hylint's modules again) and the peers, fill ruff's cache
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "hylint")], check=True)
    measure(hylint + ["--no-cache", str(touched.relative_to(work))], work, env)
    measure([str(bin_dir / "ruff"), "check", "."], work, env)
    measure([str(bin_dir / "flake8"), str(touched.relative_to(work))], work, env)

    plan = [
        ("hylint cold", lambda: shutil.rmtree(cache, ignore_errors=True), hylint + ["."]),
        ("hylint warm", None, hylint + ["."]),
        ("hylint touched", touch, hylint + ["."]),
        ("hylint cold -j1", lambda: shutil.rmtree(cache, ignore_errors=True), hylint + ["--jobs", "1", "."]),
        ("hylint fix --diff", None, hylint + ["--fix", "--diff", "--no-cache", "."]),
        ("flake8", None, [str(bin_dir / "flake8"), "."]),
        ("fixit", None, [str(bin_dir / "fixit"), "lint", "."]),
        ("ruff --no-cache", None, [str(bin_dir / "ruff"), "check", "--no-cache", "."]),
        ("ruff warm", refresh_ruff, [str(bin_dir / "ruff"), "check", "."]),
        ("ruff touched", touch, [str(bin_dir / "ruff"), "check", "."]),
    ]
    loads = [os.getloadavg()[0]]
    samples: Dict[str, List[Dict[str, float]]] = {name: [] for name, _, _ in plan}
    started = time.time()
    for round_index in range(args.rounds):
        for name, setup, command in plan:
            if name == "fixit" and round_index >= args.fixit_rounds:
                continue
            if setup is not None:
                setup()
            result = measure(command, work, env, ok_codes=(0, 1) if name != "fixit" else (0, 1, 2, 3))
            result["load"] = os.getloadavg()[0]
            samples[name].append(result)
            print(f"bench: round {round_index + 1} {name:<18} {result['wall']:8.2f} s wall "
                  f"{result['cpu']:8.2f} s cpu {result['tree_rss_mb']:7.0f} MB", file=sys.stderr)
        loads.append(os.getloadavg()[0])
    elapsed = time.time() - started

    report = render(samples, stats, versions, loads, elapsed, args, touched.relative_to(work))
    args.output.write_text(report)
    (HERE / ".corpus" / "results.json").write_text(json.dumps(
        {"samples": samples, "stats": stats, "versions": versions, "loads": loads}, indent=1))
    print(report)


def summary(values: List[Dict[str, float]], key: str) -> Dict[str, float]:
    series = [v[key] for v in values]
    return {"min": min(series), "median": statistics.median(series), "n": len(series)}


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO,
                               capture_output=True, text=True).stdout.strip()
        return head + (" (+ uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def render(samples, stats, versions, loads, elapsed, args, touched) -> str:
    sys.path.insert(0, str(REPO))
    from hylint import __version__

    def med(name, key="wall"):
        return summary(samples[name], key)["median"]

    lines = [
        "# hylint benchmark",
        "",
        f"Generated by `python benchmarks/run.py --rounds {args.rounds} --fixit-rounds {args.fixit_rounds}` "
        f"on {datetime.date.today().isoformat()}; hylint {__version__} at commit {_commit()}.",
        f"Machine: {_cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}. Shared machine: load average {min(loads):.1f} to {max(loads):.1f} "
        f"during the run ({elapsed / 60:.0f} min).",
        f"Peers: flake8 {versions['flake8']}, Fixit {versions['fixit']} (libcst {versions['libcst']}), "
        f"ruff {versions['ruff']}, each with its default rules.",
        f"Corpus: {stats['files']} files, {stats['lines']:,} lines, {stats['hybrid_forward_methods']} "
        f"`hybrid_forward` methods in {stats['files_with_hybrid_forward']} files (gluoncv 0.10.5.post0 wheel, "
        f"gluonnlp 0.10.0 sdist, mxnet 1.9.1 wheel's Python sources). Touched file: `{touched}`.",
        "",
        "Wall and CPU (user + system, workers included) time in seconds, min / median over the rounds (n);",
        "memory: max RSS of the largest process / peak summed RSS of the process tree, MB.",
        "",
        "| measurement | n | wall min | wall median | CPU median | files/s | lines/s | max RSS | tree RSS |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, values in samples.items():
        if not values:
            continue
        wall, cpu = summary(values, "wall"), summary(values, "cpu")
        rss = max(v["maxrss_mb"] for v in values)
        tree = max(v["tree_rss_mb"] for v in values)
        lines.append(f"| {name} | {wall['n']} | {wall['min']:.2f} | {wall['median']:.2f} | {cpu['median']:.2f} | "
                     f"{stats['files'] / wall['median']:,.0f} | {stats['lines'] / wall['median']:,.0f} | "
                     f"{rss:.0f} | {tree:.0f} |")
    targets = [
        ("cold hylint / ruff --no-cache", "hylint cold", "ruff --no-cache", "at most 4", lambda r: r <= 4),
        ("cold hylint -j1 / ruff --no-cache", "hylint cold -j1", "ruff --no-cache", "at most 8", lambda r: r <= 8),
        ("cold hylint / flake8", "hylint cold", "flake8", "at most 0.5", lambda r: r <= 0.5),
        ("fixit / cold hylint", "fixit", "hylint cold", "at least 20", lambda r: r >= 20),
        ("warm hylint / ruff warm", "hylint warm", "ruff warm", "at most 3", lambda r: r <= 3),
        ("touched hylint / ruff warm", "hylint touched", "ruff warm", "at most 3", lambda r: r <= 3),
    ]
    lines += ["", "Targets (ratios of medians; wall time, and CPU time for reference):", "",
              "| ratio | wall | CPU | target | holds (wall) |", "|---|---|---|---|---|"]
    for label, a, b, target, check in targets:
        if not samples[a] or not samples[b]:
            continue
        wall_ratio, cpu_ratio = med(a) / med(b), med(a, "cpu") / med(b, "cpu")
        lines.append(f"| {label} | {wall_ratio:.2f} | {cpu_ratio:.2f} | {target} | {'yes' if check(wall_ratio) else 'NO'} |")
    hylint_peak = max(v["tree_rss_mb"] for name in samples if name.startswith("hylint") for v in samples[name])
    lines.append(f"| peak memory of any hylint run (tree) | {hylint_peak:.0f} MB | | below 300 MB | "
                 f"{'yes' if hylint_peak < 300 else 'NO'} |")
    lines += ["", "Other ratios (wall, medians): "
              f"hylint cold / ruff --no-cache {med('hylint cold') / med('ruff --no-cache'):.1f}; "
              f"hylint cold -j1 / hylint cold {med('hylint cold -j1') / med('hylint cold'):.2f}; "
              f"hylint touched / ruff touched {med('hylint touched') / med('ruff touched'):.2f}; "
              f"hylint fix --diff / flake8 {med('hylint fix --diff') / med('flake8'):.2f}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
