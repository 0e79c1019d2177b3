"""`./bazelw run //:python -- [script.py | -c CODE | -m MODULE] [ARGS...]`: a Python with etarm.

Runs a user's script, code or module (or, with nothing, an interactive prompt) with etarm
and its pinned dependencies (torch, executorch, torchao, tosa-tools, Vela) importable, in
the directory bazelw was called from, like `python3` would.
"""

import code
import os
import runpy
import sys

from etarm.working_directory import user_working_directory

USAGE = "usage: ./bazelw run //:python -- [script.py | -c CODE | -m MODULE] [ARGS...]"


def main(args: list[str]) -> int:
    os.chdir(user_working_directory())
    if not args:
        code.interact(banner=f"Python {sys.version.split()[0]} with etarm", exitmsg="")
        return 0
    if args[0] in ("-c", "-m") and len(args) < 2:
        print(f"python: {args[0]} needs an argument\n{USAGE}", file=sys.stderr)
        return 2
    if args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        sys.path.insert(0, "")
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__"})
    elif args[0] == "-m":
        sys.argv = [args[1], *args[2:]]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        script = os.path.abspath(args[0])
        if not os.path.isfile(script):
            print(f"python: can't open file '{args[0]}': no such file\n{USAGE}", file=sys.stderr)
            return 2
        sys.argv = [args[0], *args[1:]]
        sys.path.insert(0, os.path.dirname(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
