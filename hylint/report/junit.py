"""JUnit XML: one testcase per checked file; a file with diagnostics fails, and its failure lists them."""
import re
from collections import defaultdict
from typing import Dict, List, TextIO
from xml.etree import ElementTree as ET

from hylint.diagnostic import Diagnostic
from hylint.report import Report
from hylint.report._common import docs_reference, where


# characters XML 1.0 cannot carry (and lone surrogates from undecodable file names)
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render(report: Report, out: TextIO) -> None:
    by_file: Dict[str, List[Diagnostic]] = defaultdict(list)
    for d in report.diagnostics:
        by_file[d.filename].append(d)
    files = sorted(set(report.sources) | set(by_file))
    failures = sum(1 for f in files if by_file.get(f))
    suites = ET.Element("testsuites", name="hylint", tests=str(len(files)), failures=str(failures), errors="0")
    suite = ET.SubElement(suites, "testsuite", name="hylint", tests=str(len(files)), failures=str(failures),
                          errors="0", skipped="0")
    for filename in files:
        case = ET.SubElement(suite, "testcase", name=_xml(filename), classname="hylint", file=_xml(filename))
        found = by_file.get(filename)
        if not found:
            continue
        codes = sorted({d.code for d in found})
        failure = ET.SubElement(case, "failure", type="hylint",
                                message=f"{len(found)} diagnostic{'s' if len(found) != 1 else ''}: {', '.join(codes)}")
        failure.text = _xml("".join(f"{where(d)}:{d.start[0]}:{d.start[1]}: {d.code} {d.message}\n"
                                    + (f"  {d.help}\n" if d.help else "") + f"  {docs_reference(d)}\n"
                                    for d in found))
    ET.indent(suites)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(suites, encoding="unicode"))
    out.write("\n")
