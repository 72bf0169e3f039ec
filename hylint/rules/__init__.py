"""One rule per module; the module is named after the rule (snake case of its kebab-case name)."""
