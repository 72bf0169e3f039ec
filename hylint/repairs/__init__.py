"""Idiom rewrites: rules find a hazard; a repair rewrites one recognised idiom into code that hybridizes.

One idiom per module, named after it (space_to_depth, parity_pad, group_norm, resize_like, eager_guard,
straight_through, custom_op, reshape_prefix, repeat_like, first_call_guard). Each module's docstring says what it rewrites, which rules use it and the
MXNet 1.9.1 measurements it rests on. Rules import repairs, never the reverse; a repair imports
``analysis/``, ``syntax/``, ``facts/``, ``rule.py`` and ``diagnostic.py`` (tests/test_layers.py). Nothing
registers a repair: a rule imports the module it uses.
"""
