"""Writes a wheel (PEP 427) from files and metadata: what //python/wheel:wheel.bzl
runs. Debian's packaged rules_python ships no wheelmaker, so py_wheel cannot run here.

The archive is reproducible: entries sorted, every timestamp 1980-01-01.
"""

import argparse
import base64
import hashlib
import sys
import zipfile

EPOCH = (1980, 1, 1, 0, 0, 0)


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def metadata(args, description: str) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {args.distribution}",
        f"Version: {args.version}",
        f"Summary: {args.summary}",
        f"Requires-Python: {args.python_requires}",
        *(f"Requires-Dist: {requirement}" for requirement in args.requires),
        "Description-Content-Type: text/markdown",
    ]
    return "\n".join(lines) + "\n\n" + description


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--distribution", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--summary", required=True)
    parser.add_argument("--python_requires", required=True)
    parser.add_argument("--description_file", required=True)
    parser.add_argument("--tag", default="py3-none-any", help="python-abi-platform (PEP 425)")
    parser.add_argument("--requires", action="append", default=[])
    parser.add_argument("--console_script", action="append", default=[], help="NAME=MODULE:FUNCTION")
    parser.add_argument("--file", action="append", default=[], help="PATH_IN_WHEEL=PATH_ON_DISK")
    args = parser.parse_args()

    dist_info = f"{args.distribution}-{args.version}.dist-info"
    entries = {}
    for pair in args.file:
        name, _, path = pair.partition("=")
        with open(path, "rb") as f:
            entries[name] = f.read()
    with open(args.description_file, encoding="utf-8") as f:
        entries[f"{dist_info}/METADATA"] = metadata(args, f.read()).encode()
    purelib = "true" if args.tag == "py3-none-any" else "false"
    entries[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: etarm build_wheel\nRoot-Is-Purelib: {purelib}\nTag: {args.tag}\n"
    ).encode()
    if args.console_script:
        scripts = "".join(f"{s.split('=', 1)[0]} = {s.split('=', 1)[1]}\n" for s in args.console_script)
        entries[f"{dist_info}/entry_points.txt"] = f"[console_scripts]\n{scripts}".encode()
    record = [record_line(name, data) for name, data in sorted(entries.items())]
    entries[f"{dist_info}/RECORD"] = ("\n".join(record + [f"{dist_info}/RECORD,,"]) + "\n").encode()

    with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name in sorted(entries):
            info = zipfile.ZipInfo(name, date_time=EPOCH)
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, entries[name])
    return 0


if __name__ == "__main__":
    sys.exit(main())
