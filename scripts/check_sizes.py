#!/usr/bin/env python3
"""check_sizes.py -- the library's files by concept: no source or header of
the library over MAX_LINES lines, no function over MAX_FUNC lines.

    python3 scripts/check_sizes.py [--root DIR]

Functions are found as the code is formatted here: a body opens with '{'
alone at the start of a line, after its signature, and closes with '}' at
the start of a line.  Exit 1 with one line per file or function over its
limit; 0 when none is.
"""
import argparse
import os
import re
import sys

MAX_LINES = 800
MAX_FUNC = 120
FOLDERS = ('core', 'io', 'spmv', 'precond', 'solver', 'mpi', 'apps', 'include')
EXT = ('.c', '.h', '.cu', '.cuh')


def functions(lines):
    """(first line number, length, signature) of each function body."""
    out, i = [], 0
    while i < len(lines):
        if lines[i] == '{' and i > 0:
            j = i + 1
            while j < len(lines) and lines[j] != '}':
                j += 1
            k = i - 1
            while k > 0 and not re.match(r'^[A-Za-z_].*\(', lines[k]):
                k -= 1
            out.append((k + 1, j - k + 1, lines[k].strip()))
            i = j
        i += 1
    return out


def check(root):
    bad = []
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding='utf-8', errors='replace') as f:
                    lines = f.read().split('\n')
                if len(lines) - 1 > MAX_LINES:
                    bad.append('%s: %d lines, more than %d' % (rel, len(lines) - 1, MAX_LINES))
                for line, n, sig in functions(lines):
                    if n > MAX_FUNC:
                        bad.append('%s:%d: %s: a function of %d lines, more than %d' % (rel, line, sig[:60], n,
                                                                                        MAX_FUNC))
    return bad


def self_test():
    """A fake tree with one file too long and one function too long (and one
    of exactly the limit): exactly those two must be reported."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, 'core'))
        with open(os.path.join(d, 'core', 'long.c'), 'w') as f:
            f.write('/* x */\n' * (MAX_LINES + 1))
        body = ['int f(void)', '{'] + ['    x++;'] * (MAX_FUNC - 2) + ['}']
        ok = ['int g(void)', '{'] + ['    x++;'] * (MAX_FUNC - 3) + ['}']
        with open(os.path.join(d, 'core', 'fn.c'), 'w') as f:
            f.write('\n'.join(ok + body) + '\n')
        bad = check(d)
    want = ['core/fn.c:%d' % (MAX_FUNC + 1), 'core/long.c: %d lines' % (MAX_LINES + 1)]
    if len(bad) != 2 or not all(any(b.startswith(w) for b in bad) for w in want):
        print('check_sizes self-test failed: %s' % bad, file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    ap.add_argument('--self-test', action='store_true', help='check the checker on a planted tree')
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    bad = check(a.root)
    for b in bad:
        print(b)
    print('check_sizes: %d over the limits' % len(bad), file=sys.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
