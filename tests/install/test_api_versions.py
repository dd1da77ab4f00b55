#!/usr/bin/env python3
"""libgstef-1.0's versions agree with the release (meson's project version):

- debian/libgstef-1.0-0.symbols names every symbol the built library
  exports (C symbols: `nm -D --defined-only`) and none it does not, except
  those marked (optional), which builds against older GStreamer leave out;
  no symbol's version is past the release (dpkg-gensymbols warns of both,
  and debian/rules makes that fail the package build; this checks the host
  build, every test run);
- every "Since:" of the public headers, and so every version="..." of the
  GIR, is at most the release's major.minor;
- the GIR's namespace version is the library's API version (the 1.0 of
  libgstef-1.0, as GStreamer's own GIRs carry), not the release;
- the plugin's origin is no invented host name: GStreamer's own default
  for a build without a URL unless the builder set package-origin.

  test_api_versions.py VERSION LIBRARY SYMBOLS HEADERS_DIR ORIGIN INSPECT [GIR]
"""
import re
import subprocess
import sys
from pathlib import Path


def version_tuple(text):
    return tuple(int(p) for p in re.findall(r"\d+", text))


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "TDBRVWi" and not fields[2].startswith("_Z"):
            names.add(fields[2].split("@")[0])
    return names


def symbols_file(path):
    """{name: (version, optional)} of the file's symbol lines."""
    listed = {}
    for line in Path(path).read_text().splitlines():
        m = re.match(r"^ (\(([^)]*)\))?(\S+)@Base (\S+)$", line)
        if m and not m.group(3).startswith('"'):
            listed[m.group(3)] = (m.group(4), "optional" in (m.group(2) or ""))
    return listed


def main():
    version, library, symbols, headers, origin, inspect = sys.argv[1:7]
    gir = sys.argv[7] if len(sys.argv) > 7 else None
    release = version_tuple(version)
    problems = []

    have = exported(library)
    listed = symbols_file(symbols)
    if not listed:
        problems.append(f"{symbols}: no symbol lines")
    for name in sorted(have - listed.keys()):
        problems.append(f"{symbols}: {name} is exported but not listed")
    for name, (ver, optional) in sorted(listed.items()):
        if name not in have and not optional:
            problems.append(f"{symbols}: {name} is listed but not exported "
                            "(mark it (optional) if only some builds have it)")
        if version_tuple(ver) > release:
            problems.append(f"{symbols}: {name} {ver} is past the release {version}")

    for header in sorted(Path(headers).glob("*.h")):
        for n, line in enumerate(header.read_text().splitlines(), 1):
            m = re.search(r"Since:\s*(\S+)(.*)", line)
            if not m:
                continue
            if not re.fullmatch(r"\d+\.\d+", m.group(1)) or m.group(2).strip():
                problems.append(f"{header.name}:{n}: 'Since: {m.group(1)}{m.group(2)}' "
                                "is not a bare major.minor")
            elif version_tuple(m.group(1)) > release[:2]:
                problems.append(f"{header.name}:{n}: Since {m.group(1)} is past the "
                                f"release {version}")

    if gir:
        text = Path(gir).read_text()
        ns = re.search(r'<namespace name="GstEf"\s+version="([^"]+)"', text)
        api = re.search(r"libgstef-(\d+\.\d+)", library)
        if not ns or not api or ns.group(1) != api.group(1):
            problems.append(f"{gir}: namespace version {ns and ns.group(1)} is not the "
                            f"library's API version {api and api.group(1)}")
        for ver in sorted(set(re.findall(r'<(?:function|method|constructor|record|class|'
                                         r'enumeration|callback|constant|field)\b[^>]*'
                                         r'\bversion="([^"]+)"', text))):
            if version_tuple(ver) > release[:2]:
                problems.append(f"{gir}: version=\"{ver}\" is past the release {version}")

    out = subprocess.run([inspect, "ef"], capture_output=True, text=True)
    m = re.search(r"^\s*Origin URL\s+(.*?)\s*$", out.stdout, re.M)
    if not m:
        problems.append(f"gst-inspect-1.0 ef shows no origin: {out.stdout[-500:]}{out.stderr}")
    elif m.group(1) != origin or ".invalid" in m.group(1):
        problems.append(f"the plugin's origin is {m.group(1)!r}, not {origin!r}")

    for p in problems:
        print(p)
    print(f"{len(have)} exported symbols, {len(listed)} listed; release {version}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
