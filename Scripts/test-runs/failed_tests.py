#!/usr/bin/env python3
"""The tests that failed in a Swift Testing xUnit report, as one `swift test --filter` pattern.

    failed_tests.py REPORT.xml     prints the pattern (nothing when no test failed; exit 2 when the
                                   report is missing or unreadable: the run did not end normally)
    failed_tests.py --self-test
"""
import re
import sys
import xml.etree.ElementTree as ElementTree


def failed(report):
    """(suite, function) of each failed test case, in report order, once each."""
    seen = []
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        if case.find("failure") is None and case.find("error") is None:
            continue
        suite = case.get("classname", "").split(".")[-1]
        function = case.get("name", "").split("(")[0]
        if (suite, function) not in seen:
            seen.append((suite, function))
    return seen


def pattern(tests):
    # A test's identifier reads Module.Suite/function(labels:); a parameterized test's cases share it.
    return "|".join(f"{re.escape(suite)}/{re.escape(function)}\\(" for suite, function in tests)


def self_test():
    import os
    import tempfile
    report = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="TestResults" tests="3" failures="2">
  <testcase classname="LocationSourcesTests.NMEAStreamTCPTests" name="aPortOutsideTCPsRangeEndsWithAClearFatalErrorNotATrap(port:)" time="1">
    <failure message="gave up after 30.0 s" /></testcase>
  <testcase classname="LocationSourcesTests.NMEAStreamTCPTests" name="aPortOutsideTCPsRangeEndsWithAClearFatalErrorNotATrap(port:)" time="1">
    <failure message="again" /></testcase>
  <testcase classname="LocationSourcesTests.NMEAStreamFileTests" name="aDirectoryIsAClearFatalError()" time="1">
    <failure message="x" /></testcase>
  <testcase classname="LocationEngineTests.Outer.Inner" name="passes()" time="1" />
</testsuite></testsuites>"""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.xml")
        with open(path, "w") as out:
            out.write(report)
        tests = failed(path)
    assert tests == [("NMEAStreamTCPTests", "aPortOutsideTCPsRangeEndsWithAClearFatalErrorNotATrap"),
                     ("NMEAStreamFileTests", "aDirectoryIsAClearFatalError")], tests
    compiled = re.compile(pattern(tests))
    assert compiled.search("LocationSourcesTests.NMEAStreamFileTests/aDirectoryIsAClearFatalError()")
    assert compiled.search("LocationSourcesTests.NMEAStreamTCPTests/aPortOutsideTCPsRangeEndsWithAClearFatalErrorNotATrap(port:)")
    assert not compiled.search("LocationSourcesTests.NMEAStreamFileTests/aDirectoryIsAClearFatalErrorToo()")
    print("failed_tests self-test: ok")


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    try:
        tests = failed(sys.argv[1])
    except (OSError, ElementTree.ParseError) as error:
        print(f"failed_tests: no readable report: {error}", file=sys.stderr)
        sys.exit(2)
    if tests:
        print(pattern(tests))


if __name__ == "__main__":
    main()
