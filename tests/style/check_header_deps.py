#!/usr/bin/env python3
"""Checks that the engine's public header does not pull RocksDB's headers into the files that
include it (the route files, the CLI, the tests): the journal keeps RocksDB behind its backend
seam. Runs the compiler's preprocessor (-M) on a file that includes each checked header and
fails naming the RocksDB headers that show up.

Usage: check_header_deps.py --root SRC_ROOT --cxx COMPILER"""
import argparse
import subprocess
import sys

CHECKED = ["engine/engine.h", "journal/journal.h", "cases/case_store.h"]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", required=True)
    parser.add_argument("--cxx", default="g++")
    args = parser.parse_args()
    failed = False
    for header in CHECKED:
        source = f'#include "{header}"\n'
        result = subprocess.run([args.cxx, "-std=c++20", "-x", "c++", "-M", "-I",
                                 f"{args.root}/src", "-"], input=source, capture_output=True,
                                text=True)
        if result.returncode != 0:
            print(f"{header}: the preprocessor failed:\n{result.stderr}")
            failed = True
            continue
        deps = result.stdout.replace("\\\n", " ").split()
        rocksdb = sorted({d for d in deps if "/rocksdb/" in d})
        if rocksdb:
            print(f"{header} includes RocksDB headers: {', '.join(rocksdb[:5])}"
                  f"{' ...' if len(rocksdb) > 5 else ''}")
            failed = True
    if failed:
        return 1
    print(f"check_header_deps: {', '.join(CHECKED)} include no RocksDB header")
    return 0


if __name__ == "__main__":
    sys.exit(main())
