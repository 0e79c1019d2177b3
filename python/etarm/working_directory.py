"""The directory a user ran `./bazelw run ...` from, where relative paths they name start."""

import os


def user_working_directory() -> str:
    """bazelw runs Bazel from the workspace when called from elsewhere and says where in
    ETARM_WORKING_DIRECTORY; otherwise `bazel run` says it in BUILD_WORKING_DIRECTORY."""
    return os.environ.get("ETARM_WORKING_DIRECTORY") or os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd()
