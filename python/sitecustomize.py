"""Keys Python's bytecode cache by the real path of each source file.

bazelw sets PYTHONPYCACHEPREFIX to one cache for every Bazel action and test. Python names a
cached .pyc after the path it imported the source from, and under Bazel that path runs
through the per-action sandbox and runfiles tree (``.../sandbox/linux-sandbox/<N>/...``): a
fresh name for every action, so the cache was never hit and grew by gigabytes per test run.
Runfiles are symlinks to files in the output base's external repositories and the
workspace; naming the .pyc after the symlink's target gives every action the same name, so
torch and executorch are compiled once per output base instead of once per process.

Python finds this module through the rules_python PYTHONPATH (``python/`` is on it for
//python/etarm), before the interpreter's own sitecustomize, which it replaces.
"""

import importlib._bootstrap_external as _bootstrap_external
import os
import sys

if sys.pycache_prefix:
    _cache_from_source = _bootstrap_external.cache_from_source

    def _cache_from_real_source(path, debug_override=None, *, optimization=None):
        return _cache_from_source(os.path.realpath(path), debug_override, optimization=optimization)

    _bootstrap_external.cache_from_source = _cache_from_real_source
