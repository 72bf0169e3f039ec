"""unused-noqa: `# noqa: HYxxx` directives that suppress nothing, and unknown HY codes in them.

The engine calls :meth:`UnusedNoqa.check_noqa` once per file, after noqa filtering, with the
(row, code) pairs that a directive did suppress.
"""
from __future__ import annotations

import re
from typing import Iterable, List, Set, Tuple

from hylint.diagnostic import Applicability, Diagnostic, Edit, Fix
from hylint.syntax.noqa import CommentDirective, comment_directives, parse_noqa
from hylint.rule import Invalid, LintRule, Valid

_NEWLINE = re.compile(r"\r\n|\r|\n")
CLS = "class N(HybridBlock):\n    def hybrid_forward(self, F, x):\n        {}\n"


class UnusedNoqa(LintRule):
    CODE = "HY090"
    NAME = "unused-noqa"
    MESSAGE = "Unused `noqa` directive"
    FIX_TITLE = "Remove the unused `noqa` directive (or its unused codes)"
    DEFAULT_ENABLED = False
    HYBRID_ONLY = False
    DOC = """
## What it does
Flags `# noqa: HYxxx` comments that suppress nothing on their line, and `HY` codes in `noqa`
comments that name no hylint rule (a typo such as `HY31`, or a rule that does not exist). Opt-in:
enable it with `--extend-select HY090` (or `extend-select = ["HY090"]`).

Only `HY` codes are judged. Codes of other tools (`# noqa: E501, HY301`) and blanket `# noqa`
comments are left alone: hylint cannot know what they suppress for flake8 or ruff. A code whose
rule is not selected in the run (`--select HY3` and a `# noqa: HY201`) is left alone too: whether it
suppresses something depends on a rule that did not run. Only directives in real comments are
judged; `"# noqa: HY301"` inside a string literal is not a comment.

## Why is this bad?
A stale `noqa` hides the next real problem on its line. Once code is fixed (or a rule becomes more
precise), the suppression outlives its reason; an unknown code suppresses nothing at all, so the
problem it was meant to silence is still reported, or the comment is just noise.

## Example
```python
def hybrid_forward(self, F, x):
    y = F.relu(x)  # noqa: HY301
    return y[0]  # noqa: HY31
```

## Use instead
```python
def hybrid_forward(self, F, x):
    y = F.relu(x)
    return y[0]  # noqa: HY301
```

## Fix safety
Safe: the fix edits only comments. When every code of a directive is unused (or unknown) it removes
the directive (a comment that held only the directive goes with the spaces before it; other comment
text on the line stays); otherwise it removes only the unused codes and keeps the others as written.
"""
    VALID = [
        # the directive suppresses HY301 on its line
        Valid(CLS.format("return x[0]  # noqa: HY301")),
        Valid(CLS.format("return x[0]  # NOQA:hy301")),
        # blanket noqa and other tools' codes are not judged
        Valid(CLS.format("return F.relu(x)  # noqa")),
        Valid(CLS.format("return F.relu(x)  # noqa: E501")),
        # not a comment
        Valid(CLS.format("return F.relu(x) + len('# noqa: HY301')")),
        # a code whose rule is off by default (HY302) did not run: not judged
        Valid(CLS.format("return F.relu(x)  # noqa: HY302")),
        # it may suppress itself
        Valid(CLS.format("return F.relu(x)  # noqa: HY301, HY090")),
        # a plain Block and a file without hybrid code: nothing to judge without a directive
        Valid("class N(Block):\n    def forward(self, x):\n        return x[0]\n"),
    ]
    INVALID = [
        Invalid(CLS.format("return F.relu(x)  # noqa: HY301"), CLS.format("return F.relu(x)")),
        # unknown code next to a used one: only the unknown one goes
        Invalid(CLS.format("return x[0]  # noqa: HY301, HY31"), CLS.format("return x[0]  # noqa: HY301")),
        Invalid(CLS.format("return x[0]  # noqa:HY201,HY301"), CLS.format("return x[0]  # noqa:HY301")),
        # another tool's code stays
        Invalid(CLS.format("return F.relu(x)  # noqa: E501,HY301"), CLS.format("return F.relu(x)  # noqa: E501")),
        # other comment text stays
        Invalid(CLS.format("return F.relu(x)  # type: ignore  # noqa: HY301"),
                CLS.format("return F.relu(x)  # type: ignore")),
        Invalid(CLS.format("return F.relu(x)  # noqa: HY301  # keep me"), CLS.format("return F.relu(x)  # keep me")),
        Invalid(CLS.format("return F.relu(x)  # noqa: HY301 relu is fine"),
                CLS.format("return F.relu(x)  # relu is fine")),
        # a file without hybrid code cannot need a hylint suppression
        Invalid("import os  # noqa: HY301\n", "import os\n"),
    ]

    def check_noqa(self, source: str, filename: str, used: Set[Tuple[int, str]],
                   selected: Iterable[str], known: Iterable[str]) -> List[Diagnostic]:
        """``selected``: the codes of this run; ``known``: every rule code (handed over by the engine)."""
        directives = comment_directives(source)
        if not directives:
            return []
        known = set(known)
        selected = set(selected)
        lines = _NEWLINE.split(source)
        line_starts = [0] + [m.end() for m in _NEWLINE.finditer(source)]
        suppressed_here = parse_noqa(lines)
        out: List[Diagnostic] = []
        for directive in directives:
            if directive.codes is None:
                continue
            own = suppressed_here.get(directive.row)
            if own is not None and own.suppresses(self.CODE):
                continue
            unused, unknown, keep = [], [], []
            for code in directive.codes:
                upper = code.upper()
                if upper == self.CODE or not upper.startswith("HY"):
                    keep.append(code)
                elif upper not in known:
                    unknown.append(upper)
                elif upper not in selected or (directive.row, upper) in used:
                    keep.append(code)
                else:
                    unused.append(upper)
            if not unused and not unknown:
                continue
            parts = []
            if unused:
                parts.append("unused: " + ", ".join(f"`{c}`" for c in unused))
            if unknown:
                parts.append("unknown: " + ", ".join(f"`{c}`" for c in unknown))
            message = f"{self.MESSAGE} ({'; '.join(parts)})"
            line = lines[directive.row - 1]
            start, end, content = _edit(directive, line, keep)
            offset = line_starts[directive.row - 1]
            edit = Edit(content, (directive.row, start + 1), (directive.row, end + 1), offset + start, offset + end)
            title = "Remove the unused `noqa` directive" if not keep else \
                "Remove the unused codes from the `noqa` directive"
            out.append(Diagnostic(self.CODE, self.NAME, message, filename,
                                  (directive.row, directive.start + 1), (directive.row, directive.end + 1),
                                  Fix(Applicability.SAFE, title, (edit,)), noqa_row=directive.row))
        return out


def _edit(directive: CommentDirective, line: str, keep: List[str]) -> Tuple[int, int, str]:
    """(start column, end column, replacement) removing the unused part of ``directive``."""
    if keep:
        return directive.codes_start, directive.end, ", ".join(keep)
    before = line[directive.comment_start:directive.start]
    after = line[directive.end:directive.comment_end]
    if before.strip():
        # text of the same comment before the directive: drop the directive and the spaces before it
        start = len(line[:directive.start].rstrip())
        return start, directive.end, ""
    if not after.strip():
        # the comment is just the directive: drop it with the spaces before it
        return len(line[:directive.comment_start].rstrip()), directive.comment_end, ""
    if after.lstrip().startswith("#"):
        # another comment follows: it becomes the line's comment
        return directive.start, directive.end + len(after) - len(after.lstrip()), ""
    # prose follows the directive (a directive followed by "because ..."): keep it as a comment
    return directive.start, directive.end + len(after) - len(after.lstrip()), "# "

