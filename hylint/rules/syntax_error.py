from hylint.rule import Invalid, LintRule, Valid


class SyntaxErrorRule(LintRule):
    CODE = "HY000"
    NAME = "syntax-error"
    MESSAGE = "SyntaxError: the file does not parse"
    HYBRID_ONLY = False
    DOC = """
## What it does
Reports a file that does not parse, with the parser's message and position.

## Why is this bad?
hylint cannot check a file it cannot parse; neither can Python run it. The other files are still checked.

## Example
```python
def hybrid_forward(self, F, x)
    return x
```

## Use instead
```python
def hybrid_forward(self, F, x):
    return x
```

## Fix safety
No fix.
"""
    VALID = [Valid("def hybrid_forward(self, F, x):\n    return x\n")]
    INVALID = [Invalid("class Net(HybridBlock):\n    def hybrid_forward(self, F, x)\n        return x\n")]
