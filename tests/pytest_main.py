"""Entry point of etarm's py_test targets: runs pytest on the files named in argv."""

import os
import sys

import pytest

if __name__ == "__main__":
    args = ["-c", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytest.ini"), "-q"]
    if "XML_OUTPUT_FILE" in os.environ:
        args.append(f"--junitxml={os.environ['XML_OUTPUT_FILE']}")
    sys.exit(pytest.main(args + sys.argv[1:]))
