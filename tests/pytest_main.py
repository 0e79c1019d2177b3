"""Entry point of etarm's py_test targets: runs pytest on the files named in argv.

Under Bazel test sharding (``shard_count``) each shard runs its contiguous slice of the
collected tests (contiguous, so tests sharing a module-level cache mostly share a shard).
"""

import os
import sys

import pytest


class BazelShard:
    """Keeps this shard's slice of the collected tests (TEST_SHARD_INDEX of TEST_TOTAL_SHARDS)."""

    def __init__(self, index: int, total: int):
        self.index, self.total = index, total

    def pytest_collection_modifyitems(self, config, items):
        begin, end = len(items) * self.index // self.total, len(items) * (self.index + 1) // self.total
        config.hook.pytest_deselected(items=items[:begin] + items[end:])
        items[:] = items[begin:end]


if __name__ == "__main__":
    args = ["-c", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytest.ini"), "-q"]
    if "XML_OUTPUT_FILE" in os.environ:
        args.append(f"--junitxml={os.environ['XML_OUTPUT_FILE']}")
    plugins = []
    total = int(os.environ.get("TEST_TOTAL_SHARDS", "1"))
    if total > 1:
        plugins.append(BazelShard(int(os.environ["TEST_SHARD_INDEX"]), total))
        if "TEST_SHARD_STATUS_FILE" in os.environ:  # tells Bazel this runner shards
            open(os.environ["TEST_SHARD_STATUS_FILE"], "w").close()
    status = pytest.main(args + sys.argv[1:], plugins=plugins)
    # A shard whose slice is empty has run nothing, which is not a failure.
    sys.exit(0 if total > 1 and status == pytest.ExitCode.NO_TESTS_COLLECTED else status)
