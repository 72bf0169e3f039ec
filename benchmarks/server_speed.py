"""How fast `hylint server` answers, and how much memory it keeps: not a test, a measurement.

    python benchmarks/server_speed.py [--file MODEL.py] [--runs 15] [--edits 1000] [--package]

Starts the server over stdio (tests/server/lsp_client.py), warms it up on a small file (imports,
rule selection), then on a ~500-line model file measures

* didOpen of a text the server has not seen -> its publishDiagnostics (target < 150 ms), and of the same
  text again after a didClose (its statements are kept parsed, hylint/server/parsing.py),
* the server's CPU while idle after the opens (it prepares the file's groups for edits,
  hylint/server/incremental.py),
* didChange (one line edited) -> the diagnostics of that version (target < 100 ms; includes the
  server's debounce, hylint/server/protocol.py DEBOUNCE), and the same for edits of an import line: a
  comment, a name one class reads (``--package``), a name every class reads (the buffer checked whole),

as wall-clock medians, with the server's own CPU time per answer (/proc/PID/stat), which the other
load on the machine changes less; then RSS of the server over 1,000 edits (``--wait-every``).

``--package`` puts the file in a package (``pkg/__init__.py`` beside it, and a helper module its blocks
call), so that every answer includes the package's reach (docs/reach.md), as in a real project.

``--in-process N`` times only the check an open runs (``Checker.check`` of a new text, N times in
this process, CPU time in microsecond ticks rather than the server's 10 ms ones), without the protocol.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import List

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "server"))

from lsp_client import LspClient  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def model_file(lines: int = 500) -> str:
    """The tutorial's Net (three hazards) as many times as fit in ``lines``, each class renamed."""
    tutorial = (ROOT / "examples" / "tutorial_net.py").read_text()
    header, _, body = tutorial.partition("\n\n\nclass Net(")
    parts = [header]
    while True:
        index = len(parts) - 1
        more = parts + [f"class Net{index}(" + body.replace("super(Net,", f"super(Net{index},")]
        if "\n\n\n".join(more).count("\n") > lines:
            break
        parts = more
    text = "\n\n\n".join(parts)
    return text + "\n" * max(0, lines - text.count("\n"))


# a helper module of the package (--package): the model's first block calls it, so the reach reaches it
HELPERS = """def centred(x):
    return x - x.mean(axis=1, keepdims=True)


def rows(x):
    return x.shape[0]
"""


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _figures(wall, cpu) -> str:
    return (f"median {statistics.median(wall) * 1000:.0f} ms wall, {statistics.median(cpu) * 1000:.0f} ms server CPU "
            f"(min {min(wall) * 1000:.0f} ms wall, {min(cpu) * 1000:.0f} ms CPU)")


def in_process(text: str, runs: int) -> None:
    """The check an open runs, with the server's own Checker, on a new text each time."""
    sys.path.insert(0, str(ROOT))
    from hylint.server.linting import Checker

    path = Path(tempfile.mkdtemp(prefix="hylint-server-bench-")) / "model.py"
    path.write_text(text)
    checker = Checker(path.parent)
    checker.check(text[:2000], path.parent / "warm.py")  # imports, rule selection
    times = []
    for run in range(runs + 3):
        checker.forget(path)
        opened = text.replace("Net", f"Run{run}Net")  # a text not seen: none of its statements parsed before
        start = time.process_time()
        found = checker.check(opened, path).diagnostics
        if run >= 3:  # the first ones fill caches
            times.append(time.process_time() - start)
    times.sort()
    print(f"check of an open ({len(found)} diagnostics), in process, {runs} runs: CPU min {times[0] * 1000:.0f} ms, "
          f"quartile {times[len(times) // 4] * 1000:.0f} ms, median {statistics.median(times) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, help="the model file (default: a generated 500-line one)")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--edits", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=2.0, help="seconds to wait after the opens, before the edits")
    parser.add_argument("--wait-every", type=int, default=1, metavar="N",
                        help="in the memory run, wait for the diagnostics of every Nth edit only (the debounce "
                             "then lints one text per N edits); 1: every edit is linted")
    parser.add_argument("--package", action="store_true",
                        help="the file in a package with a helper module, so the reach is part of each answer")
    parser.add_argument("--in-process", type=int, default=0, metavar="N",
                        help="time the check of an open N times in this process instead (no server)")
    args = parser.parse_args()
    text = args.file.read_text() if args.file else model_file()
    if args.in_process:
        in_process(text, args.in_process)
        return
    folder = Path(tempfile.mkdtemp(prefix="hylint-server-bench-"))
    path = folder / "model.py"
    if args.package:
        (folder / "pkg").mkdir()
        (folder / "pkg" / "__init__.py").write_text("")
        (folder / "pkg" / "helpers.py").write_text(HELPERS)
        path = folder / "pkg" / "model.py"
        text = "from .helpers import centred\n" + text.replace("x = x - x.mean(axis=1, keepdims=True)",
                                                             "x = centred(x)", 1)
    path.write_text(text)
    uri = path.as_uri()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT)] + os.environ.get("PYTHONPATH", "").split(os.pathsep)))
    client = LspClient(cwd=str(folder), env=env)
    try:
        started = time.perf_counter()
        client.initialize(folder.as_uri())
        warm = folder / "warm.py"
        client.notify("textDocument/didOpen", {"textDocument": {"uri": warm.as_uri(), "languageId": "python",
                                                                "version": 1, "text": text[:2000]}})
        client.diagnostics(warm.as_uri(), 1)
        print(f"file: {args.file or 'generated'} ({text.count(chr(10))} lines); "
              f"start-up to first diagnostics: {time.perf_counter() - started:.2f} s")
        pid = client.process.pid

        # each open a text the server has not seen (its classes renamed): the statements parsed on earlier
        # buffers are kept (hylint/server/parsing.py), and an editor opens a file once
        opens, open_cpu, reopens, reopen_cpu = [], [], [], []
        variants = [text.replace("Net", f"Run{run}Net") for run in range(args.runs - 1)]
        sequence = [(variant, True) for variant in variants] + [(variants[-1], False)] * 3 + [(text, True)]
        for number, (opened, fresh) in enumerate(sequence):
            cpu, start = cpu_seconds(pid), time.perf_counter()
            client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                                    "version": 1, "text": opened}})
            found = client.diagnostics(uri, 1)
            (opens if fresh else reopens).append(time.perf_counter() - start)
            (open_cpu if fresh else reopen_cpu).append(cpu_seconds(pid) - cpu)
            if number < len(sequence) - 1:
                client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
                client.diagnostics(uri, None)
        opened_diagnostics = len(found)
        print(f"didOpen of a new text -> diagnostics ({opened_diagnostics}): {_figures(opens, open_cpu)}")
        print(f"didOpen of the same text again (after a didClose): {_figures(reopens, reopen_cpu)}")
        cpu = cpu_seconds(pid)
        time.sleep(args.idle)
        print(f"then, idle for {args.idle:.0f} s (the server prepares each top-level group for edits): "
              f"{(cpu_seconds(pid) - cpu) * 1000:.0f} ms server CPU")

        lines = text.splitlines(keepends=True)
        row = next(i for i, line in enumerate(lines) if "x.mean(axis=1" in line)
        version = 1

        def edit(wait: bool = True) -> None:
            nonlocal version
            version += 1
            new = f"        x = x - x.mean(axis=1, keepdims=True)  # edit {version}"
            old_length = len(lines[row].rstrip("\r\n"))
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"range": {
                                                         "start": {"line": row, "character": 0},
                                                         "end": {"line": row, "character": old_length}},
                                                         "text": new}]})
            lines[row] = new + "\n"
            if wait:
                client.diagnostics(uri, version)

        changes, change_cpu = [], []
        for _ in range(args.runs):
            cpu, start = cpu_seconds(pid), time.perf_counter()
            edit()
            changes.append(time.perf_counter() - start)
            change_cpu.append(cpu_seconds(pid) - cpu)
        print(f"didChange -> fresh diagnostics: {_figures(changes, change_cpu)}")

        # edits of the imports (hylint/server/incremental.py): a comment re-lints nothing; a binding one class
        # reads re-lints that class; a binding every class reads, the buffer whole
        def import_edits(label: str, forms: List[str]) -> None:
            nonlocal version
            header = next(i for i, line in enumerate(lines) if line.rstrip("\r\n") in forms)
            times, cpu_times = [], []
            for run in range(max(args.runs // 3, 4)):
                version += 1
                old = lines[header].rstrip("\r\n")
                new = forms[(forms.index(old) + 1) % len(forms)]
                cpu, start = cpu_seconds(pid), time.perf_counter()
                client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                         "contentChanges": [{"range": {
                                                             "start": {"line": header, "character": 0},
                                                             "end": {"line": header, "character": len(old)}},
                                                             "text": new}]})
                lines[header] = new + "\n"
                client.diagnostics(uri, version)
                times.append(time.perf_counter() - start)
                cpu_times.append(cpu_seconds(pid) - cpu)
            print(f"didChange of an import line ({label}) -> fresh diagnostics: {_figures(times, cpu_times)}")

        import_edits("a comment", ["from mxnet import gluon", "from mxnet import gluon  # edited"])
        if args.package:
            import_edits("a name one class reads",
                         ["from .helpers import centred", "from .helpers import rows as centred"])
        import_edits("a name every class reads", ["from mxnet.gluon import nn", "import mxnet.gluon.nn as nn"])

        rss = [(version - 1, rss_mib(pid))]
        started = time.perf_counter()
        for done in range(1, args.edits + 1):
            edit(wait=done % args.wait_every == 0 or done == args.edits)
            if done in (10, 100, 250, 500, 750, 1000) or done == args.edits:
                rss.append((version - 1, rss_mib(pid)))
        print(f"{args.edits} edits (waited for every {args.wait_every}) in {time.perf_counter() - started:.0f} s; "
              "server RSS (MiB) after n edits: "
              + ", ".join(f"{n}: {value:.0f}" for n, value in rss))
        client.shutdown()
    finally:
        client.close()


if __name__ == "__main__":
    main()
