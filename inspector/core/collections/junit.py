"""A collection run as JUnit XML, for CI: one ``<testsuite>`` named after the collection, one ``<testcase>`` per
saved request (``classname`` the collection, ``name`` the request's name, ``time`` its latency), a ``<failure>``
per request that failed, its message the first failed expectation and its text every failed expectation's
sentence. The format GitHub Actions, GitLab, Jenkins and pytest's ``--junitxml`` read (the Ant JUnit schema's
elements and attributes). Written with the standard library's ElementTree, which escapes what servers said.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from inspector.core.collections.runner import CollectionRun


def to_junit(run: CollectionRun) -> bytes:
    """The run's JUnit XML document (UTF-8, with its declaration)."""
    passed, failed, _ = run.counts()
    suite = ET.Element("testsuite", {
        "name": run.collection.name, "tests": str(passed + failed), "failures": str(failed), "errors": "0",
        "skipped": "0", "time": f"{run.seconds:.3f}"})
    for result in run.results:
        case = ET.SubElement(suite, "testcase", {
            "classname": run.collection.name, "name": result.request.name,
            "time": f"{result.latency or 0.0:.3f}"})
        failures = result.failures()
        if failures:
            failure = ET.SubElement(case, "failure", {"message": _clean(f"{failures[0].expectation}: "
                                                                         f"{failures[0].sentence}"),
                                                      "type": "expectation"})
            failure.text = _clean("\n".join(f"{f.expectation}: {f.sentence}" for f in failures))
        else:
            out = ET.SubElement(case, "system-out")
            out.text = _clean("\n".join(f"{o.expectation}: {o.sentence}" for o in result.outcomes))
    if run.capture is not None:
        properties = ET.Element("properties")
        ET.SubElement(properties, "property", {"name": "capture", "value": str(run.capture)})
        suite.insert(0, properties)
    document: bytes = ET.tostring(suite, encoding="utf-8", xml_declaration=True)
    return document + b"\n"


def _clean(text: str) -> str:
    """``text`` without the characters XML 1.0 cannot hold at all (control characters but tab, LF, CR): a server's
    text may have them, and the document must still parse."""
    return "".join(ch if ch in "\t\n\r" or ord(ch) >= 0x20 else f"\\x{ord(ch):02x}" for ch in text)
