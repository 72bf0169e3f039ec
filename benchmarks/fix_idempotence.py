"""hylint's fix loop on whole folders of real code: the fixed files parse, keep their comments, and a second run
changes nothing.

    python benchmarks/fix_idempotence.py FOLDER...                 # each folder copied to a temporary one
    python benchmarks/fix_idempotence.py 'benchmarks/.unseen/src/*' --output benchmarks/fix_oracle/IDEMPOTENCE.md

Per folder (a glob pattern names every folder it matches), on a copy of its `.py` files:
1. `hylint check --fix` (the safe fixes), then again: the second run must change no file;
2. `hylint check --fix --unsafe-fixes` on the result, then again: the same.
After each first run, every file the run changed must parse (`ast.parse`) and hold every comment it held
before (compared as a multiset of comment texts: a fix may add a comment, never drop one). The fix oracle
(fix_oracle.py) judges what the fixes compute; this checks what they leave in the file.
"""
from __future__ import annotations

import argparse
import ast
import glob
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tokenize
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def comments(text: str) -> Counter:
    """The comments of a file as a multiset of their texts (whitespace collapsed); empty if it does not
    tokenize."""
    found: Counter = Counter()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                found[" ".join(token.string.split())] += 1
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return found


def lost_comments(before: str, after: str) -> List[str]:
    """The comments `before` holds that `after` does not (counted: one of two equal comments dropped shows)."""
    return sorted((comments(before) - comments(after)).elements())


def parses(text: str) -> Optional[str]:
    try:
        ast.parse(text)
    except SyntaxError as error:
        return f"{error.msg} (line {error.lineno})"
    return None


def snapshot(root: Path) -> Dict[str, str]:
    return {str(path.relative_to(root)): hashlib.sha1(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*.py"))}


def run_fix(root: Path, hylint_root: Path, unsafe: bool, python: str = sys.executable) -> None:
    command = [python, "-m", "hylint", "check", "--fix", "--exit-zero", "--no-cache", "--quiet", "."]
    if unsafe:
        command.insert(5, "--unsafe-fixes")
    env = dict(os.environ, PYTHONPATH=str(hylint_root))
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"fix_idempotence: hylint failed (exit {done.returncode}) in {root}:\n{done.stderr[-2000:]}")


def copy_sources(source: Path, target: Path) -> int:
    """The `.py` files of `source` under `target` (nothing else: data, archives and compiled parts stay)."""
    count = 0
    for path in source.rglob("*.py"):
        if path.is_file():
            destination = target / path.relative_to(source)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
            count += 1
    return count


def check_folder(source: Path, hylint_root: Path = REPO, work: Optional[Path] = None,
                 python: str = sys.executable) -> dict:
    """{"files", "safe": {...}, "unsafe": {...}} for one folder: per mode the files the first run changed, those
    the second run changed again, those that do not parse and those that lost a comment."""
    owned = work is None
    work = Path(tempfile.mkdtemp(prefix="hylint-idem-")) if owned else work
    copy = work / source.name
    if copy.exists():
        shutil.rmtree(copy)
    try:
        result = {"files": copy_sources(source, copy)}
        for mode in ("safe", "unsafe"):
            before = snapshot(copy)
            texts = {name: (copy / name).read_text(encoding="utf-8", errors="surrogateescape") for name in before}
            started = time.monotonic()
            run_fix(copy, hylint_root, mode == "unsafe", python)
            first = snapshot(copy)
            changed = sorted(name for name in first if before.get(name) != first[name])
            unparsable, lost = {}, {}
            for name in changed:
                text = (copy / name).read_text(encoding="utf-8", errors="surrogateescape")
                problem = parses(text)
                if problem and not parses(texts.get(name, "")):
                    unparsable[name] = problem
                missing = lost_comments(texts.get(name, ""), text)
                if missing:
                    lost[name] = missing
            run_fix(copy, hylint_root, mode == "unsafe", python)
            second = snapshot(copy)
            again = sorted(name for name in second if first.get(name) != second[name])
            result[mode] = {"changed": changed, "changed_again": again, "unparsable": unparsable,
                            "lost_comments": lost, "seconds": round(time.monotonic() - started, 1)}
        return result
    finally:
        if owned:
            shutil.rmtree(work, ignore_errors=True)


def folders(patterns: List[str]) -> List[Path]:
    found = []
    for pattern in patterns:
        matches = sorted(glob.glob(os.path.expanduser(pattern))) if glob.has_magic(pattern) else [pattern]
        found += [Path(match).resolve() for match in matches if Path(match).is_dir()]
    return found


def render(rows: List[tuple], command: str, commit: str) -> str:
    lines = [f"`{command}` · hylint {commit} · {time.strftime('%Y-%m-%d', time.gmtime())}", "",
             "# Fixes on whole folders: parse, comments, idempotence", "",
             "Per folder, on a copy of its `.py` files: `hylint check --fix` twice, then `--fix --unsafe-fixes` "
             "twice (benchmarks/fix_idempotence.py). `changed`: files the first run changed; `again`: files the "
             "second run changed (must be 0); `unparsable`: changed files that no longer parse (must be 0); "
             "`lost comments`: changed files missing a comment they held (must be 0).", "",
             "| folder | .py files | safe: changed | again | unparsable | lost comments | "
             "unsafe: changed | again | unparsable | lost comments |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = Counter()
    for name, result in rows:
        cells = [str(result["files"])]
        total["files"] += result["files"]
        for mode in ("safe", "unsafe"):
            entry = result[mode]
            for key in ("changed", "changed_again", "unparsable", "lost_comments"):
                cells.append(str(len(entry[key])))
                total[mode, key] += len(entry[key])
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("| all | " + " | ".join([str(total["files"])] + [str(total[mode, key]) for mode in ("safe", "unsafe")
                                         for key in ("changed", "changed_again", "unparsable", "lost_comments")])
                 + " |")
    problems = [(name, mode, key, detail) for name, result in rows for mode in ("safe", "unsafe")
                for key in ("changed_again", "unparsable", "lost_comments") for detail in
                (result[mode][key] if isinstance(result[mode][key], list) else result[mode][key].items())]
    lines += ["", f"## Problems ({len(problems)})", ""]
    lines += [f"- {name} ({mode}) {key}: {detail}" for name, mode, key, detail in problems] or ["None."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", help="folders of Gluon code (glob patterns allowed)")
    parser.add_argument("--hylint-root", type=Path, default=REPO)
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs hylint")
    parser.add_argument("--output", type=Path, help="write the Markdown table here (else print it)")
    args = parser.parse_args(argv)
    roots = folders(args.folders)
    if not roots:
        raise SystemExit("fix_idempotence: no folder matched")
    names = Counter(root.name for root in roots)
    rows = []
    for root in roots:
        name = root.name if names[root.name] == 1 else f"{root.parent.name}/{root.name}"
        result = check_folder(root, args.hylint_root.resolve(), python=args.python)
        print(f"fix_idempotence: {name}: {result['files']} files; " + "; ".join(
            f"{mode} changed {len(result[mode]['changed'])}, again {len(result[mode]['changed_again'])}, "
            f"unparsable {len(result[mode]['unparsable'])}, lost comments {len(result[mode]['lost_comments'])}"
            for mode in ("safe", "unsafe")), file=sys.stderr)
        rows.append((name, result))
    done = subprocess.run(["git", "-C", str(args.hylint_root), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True)
    command = "python benchmarks/fix_idempotence.py " + " ".join(argv if argv is not None else sys.argv[1:])
    report = render(rows, command, done.stdout.strip() or "unknown")
    if args.output:
        args.output.write_text(report)
    else:
        print(report)
    bad = sum(len(result[mode][key]) for _, result in rows for mode in ("safe", "unsafe")
              for key in ("changed_again", "unparsable", "lost_comments"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
