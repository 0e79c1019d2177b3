"""Runs every ```sh block of README.md and docs/*.md verbatim, as a user would, and checks it.

A block passes when bash runs it without error from the workspace root, every file it says
it writes exists afterwards (the paths after -o, --report and -i, "# -> PATH" comments, and
each path the compiler printed as "wrote PATH"),
and, where a plain ``` block follows it, each line of that block appears in what it printed
(numbers and runs of spaces may differ: sizes and times change).

One line is not run: `./bazelw test //...`, the command .ci/run has just run. Bazel cannot
run this script as a test (the blocks call bazelw), so .ci/run calls it after the tests.
Files and folders the blocks leave at the top of the workspace (a package such as mynet/,
outputs named relative to it) are removed after the last block; files outside it stay where
the blocks put them.

    python3 tests/docs/run_shell_blocks.py [--list] [--only FILE:LINE]
"""

import argparse
import pathlib
import re
import subprocess
import sys
import time

WORKSPACE = pathlib.Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", "docs/*.md"]
RUN_BY_CI = "./bazelw test //..."
BLOCK = re.compile(r"^```(sh|bash)\n(.*?)^```\n", re.S | re.M)
# The printed output: the next plain ``` block, after at most a short paragraph of prose.
OUTPUT_BLOCK = re.compile(r"(?:\n|[^`#\n][^\n]*\n){0,4}```\n(.*?)^```", re.S | re.M)
WROTE = re.compile(r"^wrote\s+(\S+)", re.M)
WRITTEN_FLAGS = ("-o", "--output", "--report", "-i", "--intermediates")
NUMBER = re.compile(r"\d+(\.\d+)?")


class Block:
    def __init__(self, path: pathlib.Path, line: int, script: str, expected: list[str]):
        self.path, self.line, self.script, self.expected = path, line, script, expected

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(WORKSPACE)}:{self.line}"

    def commands(self) -> str:
        """The script without the CI's own command (a trailing comment on it is allowed)."""
        kept = [line for line in self.script.splitlines() if line.split("#")[0].strip() != RUN_BY_CI]
        return "\n".join(kept) + "\n"

    def written_paths(self) -> list[str]:
        paths = []
        for line in self.commands().splitlines():
            words = line.split("#")[0].split()
            paths += [words[i + 1] for i, word in enumerate(words[:-1]) if word in WRITTEN_FLAGS]
            if "# ->" in line:
                paths.append(line.split("# ->")[1].split()[0])
        return paths


def blocks_of(path: pathlib.Path) -> list[Block]:
    text = path.read_text()
    found = []
    for match in BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        after = OUTPUT_BLOCK.match(text, match.end())
        expected = [s for s in after.group(1).splitlines() if s.strip()] if after else []
        found.append(Block(path, line, match.group(2), expected))
    return found


def normalized(line: str) -> str:
    return " ".join(NUMBER.sub("N", line).split())


def untracked_files() -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard", "--directory"],
        cwd=WORKSPACE, capture_output=True, text=True, check=True,
    )
    return set(listed.stdout.split())


def remove_new_files(before: set[str]) -> None:
    """Removes what the blocks added at the top of the workspace (mynet/, add.pte); a new file
    deeper down is someone's work in progress, not a block's output."""
    for name in sorted(untracked_files() - before):
        if "/" not in name.rstrip("/"):
            subprocess.run(["rm", "-rf", str(WORKSPACE / name)], check=True)


def check(block: Block) -> list[str]:
    """Runs the block; returns what went wrong (nothing when it passed)."""
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.commands()],
        cwd=WORKSPACE, capture_output=True, text=True, timeout=1800,
    )
    printed = run.stdout + run.stderr
    problems = []
    if run.returncode != 0:
        problems.append(f"exit code {run.returncode}; its last lines:\n{_tail(printed)}")
    lines = {normalized(line) for line in printed.splitlines()}
    problems += [f"did not print: {line}" for line in block.expected if normalized(line) not in lines]
    for written in block.written_paths() + WROTE.findall(printed):
        if not (WORKSPACE / pathlib.Path(written).expanduser()).exists():
            problems.append(f"did not write: {written}")
    return problems


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join("    " + line for line in text.splitlines()[-lines:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the blocks and what each is checked for")
    parser.add_argument("--only", help="run only the block at FILE:LINE")
    args = parser.parse_args()
    documents = sorted({p for pattern in DOCUMENTS for p in WORKSPACE.glob(pattern)})
    blocks = [block for path in documents for block in blocks_of(path)]
    if args.only:
        blocks = [block for block in blocks if block.where == args.only]
        if not blocks:
            print(f"run_shell_blocks: no sh block at {args.only}", file=sys.stderr)
            return 2
    failed = 0
    untracked_before = untracked_files()
    for block in blocks:
        if args.list:
            print(f"{block.where}: writes {block.written_paths()}, prints {len(block.expected)} line(s)")
            continue
        start = time.monotonic()
        problems = check(block)
        status = "FAILED" if problems else "ok"
        print(f"docs: {block.where} {status} ({time.monotonic() - start:.0f} s)", flush=True)
        for problem in problems:
            print(f"  {problem}")
        failed += bool(problems)
    remove_new_files(untracked_before)
    if not args.list:
        print(f"docs: {len(blocks) - failed} of {len(blocks)} shell blocks ran as written")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
