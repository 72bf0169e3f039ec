"""verify's note quotes why a fix is unsafe: for a rule with several rewrites, the sentence of the rewrite
that was applied, not every unsafe sentence of the rule's docs."""
from hylint.verify.prove import unsafe_reason


def test_a_rule_with_several_rewrites_quotes_the_applied_one():
    everything = unsafe_reason("HY201")
    assert "`assert" in everything and "SAME" in everything  # the doc has a sentence per rewrite
    moved_assert = unsafe_reason("HY201", "assert x.shape[2] % 32 == 0 / if F is mx.nd: assert x.shape[2] % 32 == 0")
    assert "`assert" in moved_assert and "SAME" not in moved_assert
    assert len(moved_assert) < len(everything) / 2


def test_unsafe_otherwise_keeps_the_sentence_it_refers_to():
    reason = unsafe_reason("HY501", "out += self.right(x) / out = out + self.right(x)")
    assert reason.startswith("Safe when") and "Unsafe otherwise" in reason


def test_no_shared_name_keeps_every_sentence():
    assert unsafe_reason("HY201", "zzz qqq") == unsafe_reason("HY201")
