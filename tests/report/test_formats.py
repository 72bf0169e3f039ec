"""Every --output-format on real lint results: exact shapes, escaping, SARIF schema, doc links."""
import io
import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from hylint.cli import main
from hylint.diagnostic import Diagnostic, docs_base, rule_url
from hylint.report import FORMATS, Report, render
from hylint.report.github import escape_data, escape_property

DATA = Path(__file__).resolve().parents[1] / "data"
BAD = ("class Net(HybridBlock):\n"
       "    def hybrid_forward(self, F, x):\n"
       "        y = F.relu(x)  # noqa: HY301\n"
       "        return y[0]\n")
CLEAN = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.relu(x)\n"
# where a team serves docs/rules.md (HYLINT_DOCS_URL, set for every test here but the ones without a page):
# the links the formats write
DOCS = "https://docs.example.org/hylint/rules.md"
HY301_URL = f"{DOCS}#hy301-tensor-subscript"
# the help line of the HY301 diagnostic of `y[0]`: what its one-line message leaves out
HELP = "After hybridize() `y` is a Symbol and `y[0]` selects graph output 0 and silently returns all of `y`."
HY090_URL = f"{DOCS}#hy090-unused-noqa"


@pytest.fixture(autouse=True)
def served_docs(monkeypatch):
    monkeypatch.setenv("HYLINT_DOCS_URL", DOCS)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A repository with one flagged file (in a folder with a space) and one clean file."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg dir").mkdir()
    (tmp_path / "pkg dir" / "net.py").write_text(BAD)
    (tmp_path / "clean.py").write_text(CLEAN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args):
    result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    return result.exit_code, result.stdout


def lint(fmt, *extra):
    return run(".", "--extend-select", "HY090", "--output-format", fmt, *extra)


def test_every_format_is_known_and_unknown_one_is_a_usage_error(project):
    for fmt in FORMATS:
        code, _ = lint(fmt)
        assert code == 1, fmt
    result = CliRunner().invoke(main, ["check", ".", "--output-format", "xml"])
    assert result.exit_code == 2
    assert "unknown output format 'xml'" in result.stderr


def test_output_format_from_config(project):
    (project / "pyproject.toml").write_text('[tool.hylint]\noutput-format = "pylint"\n')
    code, out = run(".")
    assert code == 1
    assert out == "pkg dir/net.py:4: [HY301] `y[0]` indexes graph outputs after hybridize(), not rows of `y`\n"


def test_pylint_exact(project):
    code, out = lint("pylint")
    assert out.splitlines() == [
        "pkg dir/net.py:3: [HY090] Unused `noqa` directive (unused: `HY301`)",
        "pkg dir/net.py:4: [HY301] `y[0]` indexes graph outputs after hybridize(), not rows of `y`",
    ]


def test_grouped_exact(project):
    (project / "other.py").write_text(BAD.replace("  # noqa: HY301", ""))
    code, out = lint("grouped")
    msg = "`y[0]` indexes graph outputs after hybridize(), not rows of `y`"
    assert out == (
        "other.py:\n"
        f"  4:16 HY301 [*] {msg}\n"
        "\n"
        "pkg dir/net.py:\n"
        "  3:24 HY090 [*] Unused `noqa` directive (unused: `HY301`)\n"
        f"  4:16 HY301 [*] {msg}\n"
        "\n"
        "Found 3 errors.\n"
        "[*] 3 fixable with the `--fix` option.\n")


def test_json_lines_is_the_json_format_one_object_per_line(project):
    _, as_json = lint("json")
    _, as_lines = lint("json-lines")
    objects = [json.loads(line) for line in as_lines.splitlines()]
    assert objects == json.loads(as_json)
    assert [(o["code"], o["location"], o["end_location"], o["url"]) for o in objects] == [
        ("HY090", {"row": 3, "column": 24}, {"row": 3, "column": 37}, HY090_URL),
        ("HY301", {"row": 4, "column": 16}, {"row": 4, "column": 20}, HY301_URL),
    ]


def test_junit_one_testcase_per_file(project):
    code, out = lint("junit")
    assert out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    root = ET.fromstring(out.split("\n", 1)[1])
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "1"
    suite = root.find("testsuite")
    cases = {case.get("name"): case for case in suite.findall("testcase")}
    assert set(cases) == {"clean.py", "pkg dir/net.py"}
    assert cases["clean.py"].find("failure") is None
    failure = cases["pkg dir/net.py"].find("failure")
    assert failure.get("message") == "2 diagnostics: HY090, HY301"
    assert failure.text.splitlines() == [
        "pkg dir/net.py:3:24: HY090 Unused `noqa` directive (unused: `HY301`)",
        f"  {HY090_URL}",
        "pkg dir/net.py:4:16: HY301 `y[0]` indexes graph outputs after hybridize(), not rows of `y`",
        f"  {HELP}",
        f"  {HY301_URL}",
    ]


def test_junit_survives_characters_xml_cannot_hold():
    d = Diagnostic("HY000", "syntax-error", "SyntaxError: bad \x0b byte", "a\x01b.py", (1, 1), (1, 1))
    out = io.StringIO()
    render("junit", Report([d], {}), out)
    root = ET.fromstring(out.getvalue().split("\n", 1)[1])  # parses: no control characters left
    assert root.find("testsuite/testcase").get("name") == "a\ufffdb.py"


def test_gitlab_code_quality(project):
    code, out = lint("gitlab")
    issues = json.loads(out)
    assert [i["check_name"] for i in issues] == ["HY090", "HY301"]
    issue = issues[1]
    assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
    assert issue["severity"] == "major" and issues[0]["severity"] == "minor"
    assert issue["location"] == {"path": "pkg dir/net.py",
                                 "positions": {"begin": {"line": 4, "column": 16}, "end": {"line": 4, "column": 20}}}
    assert issue["url"] == HY301_URL and HY301_URL in issue["content"]["body"]
    assert len({i["fingerprint"] for i in issues}) == 2


# -- github ------------------------------------------------------------------------------------------

def parse_workflow_command(line):
    """Parse a `::cmd k=v,...::message` line the way the Actions runner does (ActionCommand.TryParseV2)."""
    assert line.startswith("::")
    end = line.index("::", 2)
    head, message = line[2:end], line[end + 2:]
    command, _, props = head.partition(" ")
    properties = {}
    for pair in filter(None, props.split(",")):
        key, _, value = pair.partition("=")
        properties[key] = (value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":")
                           .replace("%2C", ",").replace("%25", "%"))
    message = message.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    return command, properties, message


def test_github_exact(project):
    code, out = lint("github")
    assert out.splitlines() == [
        "::error title=hylint (HY090),file=pkg dir/net.py,line=3,col=24,endLine=3,endColumn=37::"
        f"HY090 Unused `noqa` directive (unused: `HY301`)%0A{HY090_URL}",
        "::error title=hylint (HY301),file=pkg dir/net.py,line=4,col=16,endLine=4,endColumn=20::"
        f"HY301 `y[0]` indexes graph outputs after hybridize(), not rows of `y`%0A{HELP}%0A{HY301_URL}",
    ]


def test_github_toolkit_escaping():
    assert escape_data("100% a\r\nb: c, d") == "100%25 a%0D%0Ab: c, d"
    assert escape_property("a:b,c%d\ne") == "a%3Ab%2Cc%25d%0Ae"
    # %0A written literally must survive the round trip as text, not become a newline
    assert escape_data("%0A") == "%250A"


@pytest.mark.parametrize("path, message", [
    ("dir,with:comma/file%20name.py", "50% of `x`:\r\n  then, a second line"),
    ("plain.py", "literal %0A and %25 and ::double colons::"),
    ("ünïcode dir/fïle.py", "message, with: everything %\n\r"),
])
def test_github_round_trips_awkward_messages_and_paths(path, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = Diagnostic("HY301", "tensor-subscript", message, path, (3, 5), (4, 2))
    out = io.StringIO()
    render("github", Report([d], {}), out)
    lines = out.getvalue().split("\n")
    assert lines[1:] == [""] and "\r" not in lines[0]  # exactly one command line
    command, properties, text = parse_workflow_command(lines[0])
    assert command == "error"
    assert properties == {"title": "hylint (HY301)", "file": path, "line": "3", "col": "5", "endLine": "4",
                          "endColumn": "2"}
    assert text == f"HY301 {message}\n{rule_url('HY301', 'tensor-subscript')}"


# -- sarif -------------------------------------------------------------------------------------------

def sarif(project_dir):
    code, out = lint("sarif")
    assert code == 1
    return json.loads(out)


def test_sarif_validates_against_the_schema(project):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DATA / "sarif-2.1.0-rtm.5.json").read_text())
    log = sarif(project)
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]
    # and a broken log does not validate: the validator really checks
    log["runs"][0]["results"][0]["level"] = "fatal"
    assert list(validator.iter_errors(log))


def test_sarif_shape(project):
    from hylint import __version__
    from hylint.selection import all_rules

    log = sarif(project)
    assert log["version"] == "2.1.0"
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    (run_,) = log["runs"]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "hylint" and driver["version"] == __version__
    assert driver["informationUri"] == docs_base() == DOCS
    assert [r["id"] for r in driver["rules"]] == list(all_rules())
    for rule in driver["rules"]:
        assert set(rule) >= {"id", "name", "shortDescription", "fullDescription", "helpUri", "defaultConfiguration"}
        assert rule["helpUri"] == rule_url(rule["id"], rule["name"])
        assert rule["defaultConfiguration"]["level"] in ("error", "warning")
        assert "## What it does" in rule["fullDescription"]["text"]
    results = run_["results"]
    assert [r["ruleId"] for r in results] == ["HY090", "HY301"]
    result = results[1]
    assert driver["rules"][result["ruleIndex"]]["id"] == "HY301"
    assert result["level"] == "error"
    text = result["message"]["text"]
    assert text.startswith(f"`y[0]` indexes graph outputs after hybridize(), not rows of `y`. {HELP}")
    assert HY301_URL in result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "pkg%20dir/net.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 4, "startColumn": 16, "endLine": 4, "endColumn": 20}
    assert run_["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["replacements"][0]["insertedContent"]["text"].startswith("F.squeeze(F.slice_axis(y")
    assert set(result["partialFingerprints"]) == {"hylint/v1"}


def _fingerprints(log):
    return {r["ruleId"]: r["partialFingerprints"]["hylint/v1"] for r in log["runs"][0]["results"]}


def test_sarif_fingerprints_are_stable_across_unrelated_edits(project):
    before = _fingerprints(sarif(project))
    net = project / "pkg dir" / "net.py"
    # lines added above, another line of the function changed
    net.write_text("import os\n\n\n" + BAD.replace("F.relu(x)", "F.sigmoid(x) * 2"))
    after = _fingerprints(sarif(project))
    assert after == before
    # the flagged code itself changes: a new fingerprint
    net.write_text(BAD.replace("return y[0]", "return y[1]"))
    assert _fingerprints(sarif(project))["HY301"] != before["HY301"]


def test_sarif_identical_lines_get_distinct_fingerprints(project):
    (project / "pkg dir" / "net.py").write_text(BAD.replace("return y[0]", "z = y[0]\n        return y[0] + z"))
    log = sarif(project)
    prints = [r["partialFingerprints"]["hylint/v1"] for r in log["runs"][0]["results"] if r["ruleId"] == "HY301"]
    assert len(prints) == 2 and len(set(prints)) == 2


# -- doc links ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["full", "json", "json-lines", "github", "sarif", "gitlab", "junit"])
def test_every_diagnostic_carries_its_doc_url(project, fmt):
    _, out = lint(fmt)
    assert out.count(HY301_URL) >= 1 and out.count(HY090_URL) >= 1


@pytest.mark.parametrize("fmt", ["full", "concise", "grouped", "pylint"])
def test_text_formats_link_codes_on_a_terminal(fmt):
    d = Diagnostic("HY301", "tensor-subscript", "m", "a.py", (1, 1), (1, 2))
    linked, plain = io.StringIO(), io.StringIO()
    # full is rendered by rich, which links only when it styles (a colour terminal)
    render(fmt, Report([d], {}, color=(fmt == "full"), hyperlinks=True), linked)
    render(fmt, Report([d], {}), plain)
    assert "\x1b]8;" in linked.getvalue() and HY301_URL in linked.getvalue()
    assert "\x1b" not in plain.getvalue()


def test_url_points_at_a_heading_of_docs_rules_md():
    from hylint.selection import all_rules

    docs = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    anchors = {re.sub(r"[^a-z0-9 _-]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
               for line in docs.splitlines() if line.startswith("#")}
    for code, rule in all_rules().items():
        url = rule_url(code, rule.NAME)
        assert url.split("#", 1)[0] == DOCS
        assert url.split("#", 1)[1] in anchors, code


def test_a_link_only_where_the_page_exists(monkeypatch, tmp_path):
    """No public site exists: without a rules page the project declares (pyproject's [project.urls] "Rules")
    and without HYLINT_DOCS_URL, diagnostics carry no link, and the text says `hylint rule CODE`."""
    import hylint.diagnostic as diagnostic

    monkeypatch.delenv("HYLINT_DOCS_URL", raising=False)
    monkeypatch.setattr(diagnostic, "project_rules_url", lambda: None)  # no page declared
    d = Diagnostic("HY301", "tensor-subscript", "m", "a.py", (1, 1), (1, 2))
    assert d.url is None
    full, as_json, linked = io.StringIO(), io.StringIO(), io.StringIO()
    render("full", Report([d], {}), full)
    render("json", Report([d], {}), as_json)
    render("concise", Report([d], {}, hyperlinks=True), linked)
    assert "= docs: hylint rule HY301" in full.getvalue()
    assert json.loads(as_json.getvalue())[0]["url"] is None
    assert "\x1b" not in linked.getvalue()
    monkeypatch.setenv("HYLINT_DOCS_URL", "https://docs.example.org/hylint/rules.html")
    assert d.url == "https://docs.example.org/hylint/rules.html#hy301-tensor-subscript"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_renders_without_a_docs_page(fmt, monkeypatch, tmp_path):
    """Without a rules page to link to, every diagnostic's url is None. github
    wrote `d.url.replace(...)` (an internal error, exit 2); sarif and junit wrote the text `None`."""
    import hylint.diagnostic as diagnostic
    from hylint.diagnostic import Applicability, Edit, Fix

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYLINT_DOCS_URL", raising=False)
    monkeypatch.setattr(diagnostic, "project_rules_url", lambda: None)  # no page declared
    fix = Fix(Applicability.SAFE, "Select with F.slice_axis", (Edit("F.slice_axis(y)", (4, 16), (4, 20)),))
    plain = Diagnostic("HY301", "tensor-subscript", "m", "net.py", (4, 16), (4, 20), fix)
    in_cell = Diagnostic("HY301", "tensor-subscript", "m", "nb.ipynb", (1, 1), (1, 2), cell=2, file_row=7)
    assert plain.url is None
    out = io.StringIO()
    render(fmt, Report([plain, in_cell], {"net.py": BAD}, cell_sources={("nb.ipynb", 2): "y[0]\n"},
                       hyperlinks=True), out)
    text = out.getvalue()
    if fmt == "sarif":  # the rules' own pages (driver.rules) quote Python's None: the results alone
        text = json.dumps(json.loads(text)["runs"][0]["results"])
    assert "None" not in text
    if fmt in ("full", "github", "junit", "sarif", "gitlab"):  # the formats that say where to read more
        assert "hylint rule HY301" in text


def test_full_code_frame_shows_source_lines_as_they_are(tmp_path, monkeypatch):
    # markup-like text and a line-ending backslash (a continuation, a comment) are shown unchanged: rich's
    # escape() adds a backslash after a trailing one, which a code frame must not show
    (tmp_path / ".git").mkdir()
    (tmp_path / "net.py").write_text('class Net(HybridBlock):\n'
                                     '    def hybrid_forward(self, F, x):\n'
                                     '        s = "[bold]x"  # [red] ends in \\\n'
                                     '        return x[0] \\\n'
                                     '            + s\n')
    monkeypatch.chdir(tmp_path)
    code, out = run("net.py", "--output-format", "full")
    assert code == 1
    assert out == ("net.py:4:16: HY301 `x[0]` indexes graph outputs after hybridize(), not rows of `x`\n"
                   "  |\n"
                   '3 |         s = "[bold]x"  # [red] ends in \\\n'
                   "4 |         return x[0] \\\n"
                   "  |                ^^^^ HY301\n"
                   "5 |             + s\n"
                   "  |\n"
                   f"  = help: {HELP.replace('`y', '`x')}\n"
                   "  = help: Use `F.slice_axis`/`F.slice` and `F.squeeze`\n"
                   f"  = docs: {HY301_URL}\n"
                   "\n"
                   "Found 1 error.\n"
                   "No fixes available (1 hidden fix can be enabled with the `--unsafe-fixes` option).\n")


def test_full_plain_output_is_what_rich_writes():
    # without colour or links the full format writes its lines itself (rich's import is a fifth of a warm run):
    # seeded random messages, paths and source lines, rich's markup characters among them, give rich's bytes
    import random

    from rich.console import Console

    from hylint.report import full

    rng = random.Random(20261128)
    alphabet = "ab [/]\\*=|^#:'\"`é漢\n"
    for _ in range(300):
        text = lambda n: "".join(rng.choice(alphabet) for _ in range(rng.randrange(n)))  # noqa: E731
        source = "\n".join(text(12).replace("\n", "") for _ in range(4))
        row = rng.randrange(1, 5)
        d = Diagnostic("HY301", "tensor-subscript", text(20), text(6).replace("\n", "") + ".py", (row, 1),
                       (row, rng.randrange(1, 8)))
        report = Report([d], {d.filename: source})
        plain = io.StringIO()
        render("full", report, plain)
        expected = io.StringIO()
        Console(file=expected, force_terminal=False, no_color=True, highlight=False, soft_wrap=True,
                emoji=False).print(full._styled(list(full._lines(report)), False))
        assert plain.getvalue() == expected.getvalue()


# -- short messages in the one-line formats ----------------------------------------------------------

HY806 = ("`autograd.is_training()` inside a hybrid context: after hybridize() it is read once, when the graph is "
         "traced, and the branch it selects is frozen for later calls in the other mode; use operators that read "
         "the mode on every call (`F.Dropout`, `F.BatchNorm`), or call hybridize() again after switching the mode")


@pytest.mark.parametrize("message, short", [
    ("`x[0]`: short enough", "`x[0]`: short enough"),
    ("The first sentence. The second one", "The first sentence…"),
    ("a value (e.g. 3. or 4.) and `x. y` stay whole", "a value (e.g. 3. or 4.) and `x. y` stay whole"),
    (HY806, "`autograd.is_training()` inside a hybrid context: after hybridize() it is read once, when the graph is "
            "traced, and the branch it selects is frozen for later…"),
    # the clauses that fit whole, when they fill at least half the line
    ("a" * 100 + "; " + "b " * 40, "a" * 100 + "…"),
    ("a" * 50 + "; " + "b " * 80, "a" * 50 + "; " + "b " * 53 + "b…"),
    # never inside backticks while there is another place to cut
    ("word " * 30 + "`" + "code " * 20 + "`", ("word " * 30).rstrip() + "…"),
])
def test_short_message(message, short):
    from hylint.report._common import SHORT, short_message

    assert short_message(message) == short and len(short) <= SHORT


def test_short_message_keeps_the_reach_chain():
    from hylint.report._common import short_message

    chain = " (via distr.log_prob -> self._helper)"
    short = short_message(HY806 + chain)
    assert short.endswith("…" + chain) and len(short) <= 160 and short.startswith("`autograd.is_training()`")


def test_concise_and_grouped_are_short_json_sarif_and_full_keep_the_whole_message():
    d = Diagnostic("HY806", "autograd-state-in-hybrid", HY806, "a.py", (1, 1), (1, 2))
    outputs = {}
    for fmt in FORMATS:
        out = io.StringIO()
        render(fmt, Report([d], {}), out)
        outputs[fmt] = out.getvalue()
    for fmt in ("concise", "grouped"):
        (line,) = [line for line in outputs[fmt].splitlines() if "HY806" in line]
        assert HY806 not in line and line.endswith("frozen for later…") and len(line.split("HY806 ")[1]) <= 160
    assert json.loads(outputs["json"])[0]["message"] == HY806
    assert json.loads(outputs["sarif"])["runs"][0]["results"][0]["message"]["text"].startswith(HY806)
    assert HY806 in outputs["full"] and HY806 in outputs["json-lines"]


def test_the_link_is_the_https_rules_page_the_project_declares(monkeypatch):
    """Issue 44 item 7: a diagnostic links to the rules page pyproject's [project.urls] declares as "Rules"
    (the installed distribution's Project-URL), only over https; never a file:// path into a checkout (an
    editable install linked every diagnostic to file:///<checkout>/docs/rules.md)."""
    import importlib.metadata

    import hylint.diagnostic as diagnostic

    monkeypatch.delenv("HYLINT_DOCS_URL", raising=False)

    class Metadata:
        def __init__(self, entries):
            self.entries = entries

        def get_all(self, name):
            return self.entries if name == "Project-URL" else None

    def declared(*entries):
        monkeypatch.setattr(importlib.metadata, "metadata",
                            lambda name: Metadata(list(entries)) if name == "hylint" else None)
        diagnostic.project_rules_url.cache_clear()
        return Diagnostic("HY301", "tensor-subscript", "m", "a.py", (1, 1), (1, 2)).url

    try:
        assert declared("Homepage, https://example.org/hylint",
                        "Rules, https://example.org/hylint/docs/rules.md") == \
            "https://example.org/hylint/docs/rules.md#hy301-tensor-subscript"
        assert declared("Rules, file:///work/hylint/docs/rules.md") is None
        assert declared("Homepage, https://example.org/hylint") is None
        assert declared() is None
    finally:
        diagnostic.project_rules_url.cache_clear()


def test_this_checkout_links_nowhere_on_disk(monkeypatch):
    """hylint run from this checkout (an editable install) declares no rules page: no link, no file://."""
    import hylint.diagnostic as diagnostic

    monkeypatch.delenv("HYLINT_DOCS_URL", raising=False)
    diagnostic.project_rules_url.cache_clear()
    assert diagnostic.docs_base() is None
    assert Diagnostic("HY301", "tensor-subscript", "m", "a.py", (1, 1), (1, 2)).url is None
