"""`python -m mmcc.testbed.linkemu CONFIG.json`: the testbed's link emulator (Rust, in the
extension module `mmcc._core`), run as its own process by `mmcc testbed`. It needs no cargo and
no file in the source tree, so the testbed works from an installed package and a read-only
checkout."""

import sys


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.stderr.write("usage: python -m mmcc.testbed.linkemu CONFIG.json  (written by `mmcc testbed`; "
                         "see docs/testbed.md)\n")
        return 2
    from .. import _core

    try:
        _core.linkemu(argv[0])
    except RuntimeError as e:
        sys.stderr.write(f"mmcc-linkemu: {e}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
