#!/usr/bin/env python3
"""Checks DESIGN.md §5's size rules on src/: no function body longer than --max-function-lines
lines, no non-test file longer than --max-file-lines lines. A lambda counts as part of the
function that holds it. Prints every offender with its place and exits 1 if there is one.

The C++ is read by a small brace scanner (comments, strings and character literals removed),
not a compiler: a brace block at namespace or class scope whose header has a parameter list is
a function body."""
import argparse
import pathlib
import re
import sys

SCOPE_HEADER = re.compile(r'^\s*(template\s*<.*>\s*)?(namespace|class|struct|union|enum|extern)\b',
                          re.S)


def strip_code(text):
    """Text with comments, string and character literals blanked, newlines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            i = n if j < 0 else j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(')' + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + '\n' * text.count('\n', i, j))
            i = j
        elif c in '"\'':
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def long_functions(path, limit):
    code = strip_code(path.read_text(encoding='utf-8', errors='replace'))
    code = re.sub(r'^\s*#.*$', '', code, flags=re.M)  # preprocessor lines
    stack = []  # (kind, start line, header)
    header_start = 0
    line = 1
    found = []
    for i, c in enumerate(code):
        if c == '\n':
            line += 1
        elif c in ';{}':
            if c == '{':
                header = code[header_start:i]
                inside_function = any(kind == 'function' for kind, _, _ in stack)
                if inside_function:
                    kind = 'block'
                elif SCOPE_HEADER.match(header):
                    kind = 'scope'
                elif ')' in header and not re.search(r'=\s*$', header):
                    kind = 'function'
                else:
                    kind = 'block'
                stack.append((kind, line, ' '.join(header.split())))
            elif c == '}' and stack:
                kind, start, header = stack.pop()
                if kind == 'function' and line - start + 1 > limit:
                    name = re.findall(r'([~\w:]+)\s*\(', header)
                    found.append((start, line - start + 1, name[0] if name else header[:60]))
            header_start = i + 1
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--root', default=str(pathlib.Path(__file__).resolve().parents[2]))
    parser.add_argument('--max-function-lines', type=int, default=120)
    parser.add_argument('--max-file-lines', type=int, default=800)
    args = parser.parse_args()
    src = pathlib.Path(args.root) / 'src'
    failures = []
    for path in sorted(src.rglob('*')):
        if path.suffix not in ('.cc', '.h'):
            continue
        rel = path.relative_to(args.root)
        is_test = path.stem.endswith('_test') or '_test_' in path.stem
        lines = path.read_text(encoding='utf-8', errors='replace').count('\n')
        if not is_test and lines > args.max_file_lines:
            failures.append(f'{rel}: {lines} lines (at most {args.max_file_lines})')
        if is_test:
            continue
        for start, length, name in long_functions(path, args.max_function_lines):
            failures.append(f'{rel}:{start}: {name} is {length} lines '
                            f'(at most {args.max_function_lines})')
    for failure in failures:
        print(failure)
    if failures:
        return 1
    print(f'check_sizes: every function in {src} is at most {args.max_function_lines} lines, '
          f'every non-test file at most {args.max_file_lines}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
