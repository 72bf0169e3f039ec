from hylint.rule import LintRule


class UnreadableFile(LintRule):
    CODE = "HY001"
    NAME = "unreadable-file"
    MESSAGE = "The file cannot be read or decoded"
    HYBRID_ONLY = False
    DOC = """
## What it does
Reports a Python file that cannot be read (permissions, a directory, a broken link) or decoded
(not valid in the encoding its coding cookie or BOM declares, or a binary file named `.py`), and a
Jupyter notebook (`.ipynb`) that is not an nbformat 4 notebook hylint can read: invalid JSON, an
nbformat 3 notebook, no code cells, a code cell whose `source` is neither a string nor a list of
strings.

## Why is this bad?
A file hylint cannot read is a file nobody checked. The run goes on with the other files.

## Example
A binary file saved as `model.py`, or a Latin-1 file without a `# -*- coding: latin-1 -*-` cookie.

## Use instead
Save the file as UTF-8, or declare its encoding with a coding cookie; exclude generated files
with `extend-exclude`. Convert an old notebook with `jupyter nbconvert --to notebook --nbformat 4`.

## Fix safety
No fix.
"""
