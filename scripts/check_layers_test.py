#!/usr/bin/env python3
"""check_layers_test.py -- the layer checker (check_layers.py) on tiny made-up
trees, so that the checker itself can fail.

    python3 scripts/check_layers_test.py

The first tree has one include edge up the layers (core -> precond), one call
cycle (solver/x.c <-> solver/y.c) and clean edges (io and precond using core,
a header's inline function among them): the checker must report exactly the
first two and exit 1, from the sources alone and, where a C compiler and nm
exist, from objects alone (--calls nm).  Then a call up the layers, a call
across one level (io -> spmv), a cycle through three files, a cycle
through a header's inline function and a use of precond past its interface
must be found, names in comments and strings must not, and the tree with its
violations removed must pass (exit 0, no output).  Exit 0: all as expected.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, 'check_layers.py')

BASE = {
    'include/spk.h': 'int spk_solve_all(void);\n',
    'core/c.h': '''#ifndef C_H
#define C_H
int spk_c_value(void);
/* inline: the header's own */
static inline int spk_c_twice(int x) { return 2 * x; }
#endif
''',
    'core/c.c': '''#include "core/c.h"
#include "precond/precond.h"

int spk_c_value(void)
{
    return spk_c_twice(1);
}
''',
    'precond/precond.h': 'int spk_p_apply(int n);\n',
    'precond/precond.c': '''#include "precond.h"
#include "core/c.h"

int spk_p_apply(int n) { return n + spk_c_value(); }
''',
    'io/r.c': '''#include "core/c.h"
int spk_r_read(void);
int spk_r_read(void) { return spk_c_twice(spk_c_value()); }
''',
    'solver/xy.h': 'int spk_x(int n);\nint spk_y(int n);\n',
    'solver/x.c': '''#include "solver/xy.h"
#include "precond/precond.h"
int spk_x(int n) { return n > 0 ? spk_y(n - 1) : spk_p_apply(n); }
''',
    'solver/y.c': '''#include "solver/xy.h"
#include "spk.h"
int spk_y(int n) { return spk_x(n - 1); }
int spk_solve_all(void) { return spk_y(3); }
''',
    'tests/t.c': '#include "solver/xy.h"\n#include "core/c.h"\nint main(void) { return spk_x(1); }\n',
}
BASE_EXPECTED = {('core/c.c', 'includes'), ('solver/x.c', 'call cycle')}


def run(tree, extra=()):
    """(exit status, output lines) of the checker on tree."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in tree.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as f:
                f.write(text)
        args = list(extra)
        if '--build' in args:
            build = os.path.join(root, 'build')
            objdir = os.path.join(build, 'CMakeFiles', 'spk_objects.dir')
            for rel in tree:
                if rel.endswith('.c') and not rel.startswith('tests/'):
                    obj = os.path.join(objdir, rel + '.o')
                    os.makedirs(os.path.dirname(obj), exist_ok=True)
                    subprocess.run(['cc', '-c', '-O0', '-I', root, '-I',
                                    os.path.join(root, 'include'), os.path.join(root, rel),
                                    '-o', obj], check=True)
            args[args.index('--build') + 1] = build
        p = subprocess.run([sys.executable, CHECKER, '--root', root] + args,
                           capture_output=True, text=True)
        return p.returncode, [l for l in p.stdout.splitlines() if l]


def kinds(lines):
    """{(file, 'includes' | 'calls' | 'call cycle')} of the checker's lines."""
    out = set()
    for l in lines:
        f = l.split(':', 1)[0]
        rest = l.split(': ', 1)[1]
        out.add((f, 'call cycle' if rest.startswith('call cycle') else rest.split()[0]))
    return out


failures = []


def expect(what, tree, want, extra=()):
    rc, lines = run(tree, extra)
    got = kinds(lines)
    ok = got == want and len(lines) == len(want) and rc == (1 if want else 0)
    print('%s: %s' % ('ok' if ok else 'FAILED', what))
    if not ok:
        failures.append(what)
        print('  exit %d; expected %s\n  got:\n    %s' % (rc, sorted(want), '\n    '.join(lines)))
    return lines


lines = expect('one up-edge, one cycle, clean edges: exactly the first two (sources)', BASE,
               BASE_EXPECTED, ['--calls', 'scan'])
named = [l for l in lines if 'includes precond/precond.h: up the layers' in l
         and '(core 0)' in l and '(precond 2)' in l]
if lines and not named:
    failures.append('the up-edge line names the edge and the layers')
    print('FAILED: the up-edge line names the edge and the layers:\n  ' + '\n  '.join(lines))
if shutil.which('cc') and shutil.which('nm'):
    expect('the same from objects alone (nm)', BASE, BASE_EXPECTED, ['--build', 'B', '--calls', 'nm'])
    expect('the same from both', BASE, BASE_EXPECTED, ['--build', 'B'])
else:
    print('skipped: the nm checks (no cc or nm)')

CLEAN = dict(BASE, **{'core/c.c': BASE['core/c.c'].replace('#include "precond/precond.h"\n', ''),
                      'solver/y.c': BASE['solver/y.c'].replace('spk_x(n - 1)', 'n')})
expect('the tree without its violations passes', CLEAN, set())
expect('a call up the layers (core -> precond)',
       dict(CLEAN, **{'core/d.c': 'int spk_p_apply(int n);\nint spk_d(void);\n'
                                  'int spk_d(void) { return spk_p_apply(1); }\n'}),
       {('core/d.c', 'calls')})
expect('a call across one level (io -> spmv)',
       dict(CLEAN, **{'spmv/s.c': 'int spk_s(void);\nint spk_s(void) { return 0; }\n',
                      'io/q.c': 'int spk_s(void);\nint spk_q(void);\nint spk_q(void) { return spk_s(); }\n'}),
       {('io/q.c', 'calls')})
expect('a cycle through three files',
       dict(CLEAN, **{'io/a.c': 'int spk_b(void);\nint spk_a(void);\nint spk_a(void) { return spk_b(); }\n',
                      'io/b.c': 'int spk_c3(void);\nint spk_b(void);\nint spk_b(void) { return spk_c3(); }\n',
                      'io/c.c': 'int spk_a(void);\nint spk_c3(void);\nint spk_c3(void) { return spk_a(); }\n'}),
       {('io/a.c', 'call cycle')})
expect("a cycle through a header's inline function",
       dict(CLEAN, **{'io/h.h': 'int spk_back(void);\n'
                              'static inline int h_twice(void) { return 2 * spk_back(); }\n',
                      'io/u.c': '#include "io/h.h"\nint spk_back(void) { return 1; }\n'
                                'int spk_u(void);\nint spk_u(void) { return h_twice(); }\n'}),
       {('io/h.h', 'call cycle')})
expect("a use of precond past its interface (precond.h, precond.c)",
       dict(CLEAN, **{'precond/q.c': 'int spk_q_warm(void);\nint spk_q_warm(void) { return 0; }\n',
                      'solver/w.c': 'int spk_q_warm(void);\nint spk_w(void);\n'
                                    'int spk_w(void) { return spk_q_warm(); }\n'}),
       {('solver/w.c', 'calls')})
expect('a comment, a string and a static function of the same name are no edges',
       dict(CLEAN, **{'core/e.c': '/* spk_p_apply(1) */\nstatic int spk_p_apply(int n) { return n; }\n'
                                  'const char *spk_e(void);\n'
                                  'const char *spk_e(void) { return "spk_p_apply(2)" + spk_p_apply(0); }\n'}),
       set())

if failures:
    print('check_layers_test: %d FAILED' % len(failures))
    sys.exit(1)
print('check_layers_test: all passed')
