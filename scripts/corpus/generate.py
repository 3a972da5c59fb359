#!/usr/bin/env python3
"""Build the command corpus from a checkout of tldr-pages (https://github.com/tldr-pages/tldr,
CC BY 4.0): every example of pages/common and pages/linux, placeholders filled with the
files of the fixture workspace (see `run`). Only pages whose program is installed here are
kept when --installed is given.

    scripts/corpus/generate.py TLDR_CHECKOUT [--installed] > scripts/corpus/commands.txt
"""
import os
import re
import shutil
import sys

FILLS = [
    (r"\[(-[^|\]]+)\|[^\]]*\]", None),  # [-x|--long]: the first spelling
    (r"\.tar\.gz|\.tgz", "archive.tar.gz"),
    (r"\.tar", "archive.tar"),
    (r"\.zip", "archive.zip"),
    (r"\.gz", "notes.txt.gz"),
    (r"\.json", "data.json"),
    (r"\.csv", "data.csv"),
    (r"\.py\b", "script.py"),
    (r"\.sh\b", "script.sh"),
    (r"\.md\b", "README.md"),
    (r"\.(png|jpe?g|gif|svg)", "image.png"),
    (r"\.txt|\.log", "notes.txt"),
    (r"director|folder|\bdir\b", "src"),
    (r"file1|files|\.\.\.", "notes.txt README.md"),
    (r"url|https?:", "https://example.com"),
    (r"\bip\b|address", "192.0.2.1"),
    (r"host|domain|server", "example.com"),
    (r"port", "8080"),
    (r"user", "alice"),
    (r"group", "staff"),
    (r"\bpid\b|process_id", "1"),
    (r"branch", "main"),
    (r"commit|revision|\bref\b", "HEAD"),
    (r"remote", "origin"),
    (r"\btag\b", "v1"),
    (r"pattern|regex|search|string|text|word|query|keyword", "hello"),
    (r"command|program|executable", "ls"),
    (r"variable", "HOME"),
    (r"package|module|name", "demo"),
    (r"^\d+$|count|number|\bn\b|lines|size|seconds|minutes|amount|width|depth|level", "3"),
    (r"file|path", "notes.txt"),
]


def fill(placeholder: str) -> str:
    p = placeholder.strip()
    m = re.fullmatch(r"\[(-[^|\]]+)\|[^\]]*\]", p)
    if m:
        return m.group(1)
    low = p.lower()
    for pattern, value in FILLS[1:]:
        if re.search(pattern, low):
            return value
    return "notes.txt"


def commands(page: str):
    for line in page.splitlines():
        line = line.strip()
        if line.startswith("`") and line.endswith("`") and len(line) > 2:
            yield re.sub(r"\{\{(.*?)\}\}", lambda m: fill(m.group(1)), line[1:-1])


def main() -> None:
    root, installed = sys.argv[1], "--installed" in sys.argv
    seen = set()
    for part in ("common", "linux"):
        folder = os.path.join(root, "pages", part)
        for name in sorted(os.listdir(folder)):
            program = name[:-3]
            if installed and shutil.which(program) is None:
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for c in commands(f.read()):
                    if c not in seen and "\n" not in c:
                        seen.add(c)
                        print(c)


if __name__ == "__main__":
    main()
