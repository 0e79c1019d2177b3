"""TOSA specification strings such as ``TOSA-1.0+INT+int16``.

A specification is a version plus one or more profiles (FP, INT) and optional
extensions; it decides which operators and data types a lowering may emit.
"""

from __future__ import annotations

import dataclasses
import re

from etarm.errors import EtarmError

PROFILES = ("FP", "INT")
# Extensions TOSA 1.0 defines that etarm lowers for; the profile each one needs.
EXTENSIONS = {
    "int16": "INT",
    "int4": "INT",
    "bf16": "FP",
    "fp8e4m3": "FP",
    "fp8e5m2": "FP",
    "fft": "FP",
    "variable": None,
    "controlflow": None,
}
SUPPORTED_VERSIONS = ((1, 0),)

_SPEC_RE = re.compile(r"^TOSA-(\d+)\.(\d+)(?:\.(\d+))?((?:\+[A-Za-z0-9]+)+)$")


@dataclasses.dataclass(frozen=True)
class TosaSpecification:
    major: int
    minor: int
    profiles: frozenset[str]
    extensions: frozenset[str] = frozenset()

    @staticmethod
    def create_from_string(text: str) -> "TosaSpecification":
        match = _SPEC_RE.match(text.strip())
        if not match:
            raise EtarmError(
                f"invalid TOSA specification '{text}': expected e.g. TOSA-1.0+FP, TOSA-1.0+INT, TOSA-1.0+INT+int16"
            )
        major, minor = int(match.group(1)), int(match.group(2))
        if (major, minor) not in SUPPORTED_VERSIONS:
            known = ", ".join(f"{a}.{b}" for a, b in SUPPORTED_VERSIONS)
            raise EtarmError(f"unsupported TOSA version {major}.{minor} in '{text}' (supported: {known})")
        profiles, extensions = set(), set()
        for part in match.group(4).split("+")[1:]:
            if part.upper() in PROFILES and part.isupper():
                profiles.add(part)
            elif part.lower() in EXTENSIONS and part.islower():
                extensions.add(part)
            else:
                raise EtarmError(
                    f"unknown TOSA profile or extension '{part}' in '{text}' "
                    f"(profiles: {', '.join(PROFILES)}; extensions: {', '.join(EXTENSIONS)})"
                )
        if not profiles:
            raise EtarmError(f"TOSA specification '{text}' names no profile (add +FP or +INT)")
        for ext in extensions:
            needed = EXTENSIONS[ext]
            if needed and needed not in profiles:
                raise EtarmError(f"TOSA extension '{ext}' needs the {needed} profile, which '{text}' does not name")
        return TosaSpecification(major, minor, frozenset(profiles), frozenset(extensions))

    def supports_fp(self) -> bool:
        return "FP" in self.profiles

    def supports_int(self) -> bool:
        return "INT" in self.profiles

    def has_extension(self, name: str) -> bool:
        return name in self.extensions

    def __str__(self) -> str:
        parts = [f"TOSA-{self.major}.{self.minor}"]
        parts += [f"+{p}" for p in PROFILES if p in self.profiles]
        parts += [f"+{e}" for e in sorted(self.extensions)]
        return "".join(parts)
