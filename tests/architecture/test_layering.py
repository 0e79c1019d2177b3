"""The Python packages' dependencies: what python/etarm's BUILD files declare is what the code imports.

Each py_library of //python/etarm (one per package, see python/etarm/BUILD.bazel) must
declare every etarm library its modules import and none they do not; the libraries form
no cycle; and no module imports an etarm module inside a function (the way cycles hide),
except the CLI, which imports torch-heavy modules after pausing the garbage collector.
"""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2] / "python" / "etarm"
# Deps that are no etarm module import: the umbrella and start-up helpers.
NOT_IMPORTED = {"//python:sitecustomize"}
LOCAL_IMPORTS_ALLOWED = {"etarm.cli"}


def _libraries() -> dict[str, dict]:
    """label -> {"srcs": [module paths], "deps": {etarm labels}} from the BUILD files."""
    libraries = {}
    for build in sorted(ROOT.rglob("BUILD.bazel")):
        package = build.parent
        label_dir = "//" + str(package.relative_to(ROOT.parents[1])).replace("\\", "/")
        text = build.read_text()
        # Libraries only: a py_binary wraps a library that owns its main module.
        found = [m.groups() for m in re.finditer(r"py_library\(\s*name = \"([^\"]+)\",(.*?)\n\)", text, re.S)]
        # etarm_package (package.bzl): the library named after its package, over every .py below it.
        found += [(package.name, 'srcs = glob(["**/*.py"])' + m.group(1)) for m in re.finditer(r"etarm_package\((.*?)\n\)", text, re.S)]
        for name, body in found:
            label = label_dir if name == package.name else f"{label_dir}:{name}"
            srcs = re.search(r"srcs = (glob\(\[\"\*\*/\*\.py\"\]\)|\[[^\]]*\])", body)
            if srcs is None:
                files = []
            elif srcs.group(1).startswith("glob"):
                files = [f for f in package.rglob("*.py") if not _owned_by_subpackage(f, package)]
            else:
                files = [package / s for s in re.findall(r"\"([^\"]+\.py)\"", srcs.group(1))]
            listed = re.search(r"\bdeps = \[([^\]]*)\]", body)
            labels = re.findall(r"\"((?://python|:)[^\"]*)\"", listed.group(1)) if listed else []
            deps = {label_dir + d if d.startswith(":") else d for d in labels}
            deps -= NOT_IMPORTED
            libraries[label] = {"srcs": files, "deps": deps}
    return libraries


def _owned_by_subpackage(path: pathlib.Path, package: pathlib.Path) -> bool:
    return any((parent / "BUILD.bazel").exists() for parent in path.parents if parent != package and package in parent.parents)


def _module(path: pathlib.Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: pathlib.Path) -> list[tuple[str, bool]]:
    """(imported etarm module, inside a function) for each import of ``path``."""
    tree = ast.parse(path.read_text())
    found = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom) and child.module and child.module.startswith("etarm"):
                found.extend((f"{child.module}.{alias.name}", in_function) for alias in child.names)
                found.append((child.module, in_function))
            elif isinstance(child, ast.Import):
                found.extend((alias.name, in_function) for alias in child.names if alias.name.startswith("etarm"))
            visit(child, nested)

    visit(tree, False)
    return found


LIBRARIES = _libraries()
OWNER = {_module(f): label for label, lib in LIBRARIES.items() for f in lib["srcs"]}


def _owner(module: str) -> str | None:
    while module:
        if module in OWNER:
            return OWNER[module]
        module = module.rpartition(".")[0]
    return None


def _imported_libraries(label: str) -> set[str]:
    used = set()
    for path in LIBRARIES[label]["srcs"]:
        for module, _ in _imports(path):
            owner = _owner(module)
            if owner is not None and owner != label and module != "etarm":
                used.add(owner)
    return used


def test_every_module_belongs_to_one_library():
    modules = [_module(p) for p in ROOT.rglob("*.py")]
    assert [m for m in modules if m not in OWNER] == []


@pytest.mark.parametrize("label", sorted(LIBRARIES))
def test_declared_deps_are_the_imported_ones(label):
    declared = LIBRARIES[label]["deps"]
    used = _imported_libraries(label)
    if label == "//python/etarm":  # the umbrella: deps without imports by design
        assert used == set()
        return
    assert sorted(used - declared) == [], f"{label} imports libraries it does not declare"
    assert sorted(declared - used) == [], f"{label} declares libraries it does not import"


def test_libraries_form_no_cycle():
    graph = {label: _imported_libraries(label) for label in LIBRARIES}
    done, active = set(), []

    def walk(label):
        if label in active:
            cycle = active[active.index(label) :] + [label]
            pytest.fail(f"import cycle: {' -> '.join(cycle)}")
        if label in done:
            return
        active.append(label)
        for dep in sorted(graph[label]):
            walk(dep)
        active.pop()
        done.add(label)

    for label in sorted(graph):
        walk(label)


def test_no_function_local_etarm_imports():
    local = sorted(
        f"{_module(path)} imports {module}"
        for label, lib in LIBRARIES.items()
        for path in lib["srcs"]
        if _module(path) not in LOCAL_IMPORTS_ALLOWED
        for module, in_function in _imports(path)
        if in_function
    )
    assert local == []
