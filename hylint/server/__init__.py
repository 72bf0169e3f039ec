"""``hylint server``: a Language Server Protocol server (pygls) that lints, fixes and explains as you type.

protocol.py speaks LSP, convert.py turns hylint's values into LSP's, linting.py is the one place that
calls the linter (settings of the file, rule selection, lint, fix, add noqa).
"""
