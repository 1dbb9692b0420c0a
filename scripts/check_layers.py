#!/usr/bin/env python3
"""check_layers.py -- check that spk's sources keep to their layers.

    python3 scripts/check_layers.py [--build DIR] [--calls nm|scan|both] [--root DIR]

Fails (exit 1, one line per violation on stdout) on
  (a) an #include edge up the layers, or between two parts of one level
      that must stay apart (io and spmv), or into a part past its interface
      (INTERFACES: precond from above only through precond.h / precond.c);
  (b) a call edge of the same kinds;
  (c) a call cycle between files: A calls a function defined in B and B,
      directly or through other files, calls one defined in A.
The units are source files (.c, .cu) and headers (.h, .cuh): the inline
functions a header defines are the header's.  Exit 0: no violation.

Include edges come from the #include lines, resolved as the build resolves
them: beside the including file, then at the repository root, then in
include/.  Call edges (a use of a function's address counts as a call) come
from two places, merged:
  nm    (--build DIR) the objects of a CMake build of the tree: in each
        object, its defined global text symbols (T) and its undefined ones
        (U); an object maps back to its source by its path under
        DIR/CMakeFiles/<target>.dir/.  Sees what the compiler saw, for the
        configuration that was built.
  scan  the sources themselves, with the macros they use expanded by name:
        uses of spk_* functions defined (not static) in one other file, of
        other functions defined in one other file and declared in a header
        the user includes, and of functions defined inline in a header the
        user includes (directly or not).  Sees code the build left out
        (#ifdef SPK_HAVE_CUDA without CUDA); not the functions that macros
        define, nor names that ## pastes together (nm sees those).
Without --build only the scan runs.  Tests, examples, benchmarks, scripts,
python/ and fortran/ are outside the check (they may use anything).
"""
import argparse
import bisect
import os
import re
import subprocess
import sys

# ---- the layers ----------------------------------------------------------
# (path, part, level): a path ending in '/' is a folder.  A part may use
# parts of a lower level, and parts of its own level only where PEERS says.
LAYERS = [
    ('core/', 'core', 0),          # types, status, executors, BLAS-1
    ('io/', 'io', 1),              # Matrix Market, generators
    ('spmv/', 'spmv', 1),          # formats; io and spmv do not use each other
    ('precond/', 'precond', 2),
    ('solver/', 'solver', 3),
    ('include/spk.h', 'api', 3),   # the public header, which solver implements
    ('mpi/', 'mpi', 4),            # distributed: above solver and precond
    ('include/spk_mpi.h', 'api_mpi', 4),  # the public header of the solve across ranks (mpi/api_mpi.c)
    ('apps/', 'apps', 5),
]
PEERS = {('solver', 'api'), ('mpi', 'api_mpi')}  # (user, used) of one level allowed
# The only files of a part that other parts may use (a part not named here:
# any of its files).  Above precond, the drivers see its table and registry.
# precond/devtri.h and devtri.cuh: a preconditioner that one thread block
# applies (precond.h's `block` entry), inlined by the solver's block kernels.
# precond/zprecond.h and zprecond.c: the complex systems' preconditioners.
INTERFACES = {'precond': ('precond/precond.h', 'precond/precond.c', 'precond/devtri.h', 'precond/devtri.cuh',
                        'precond/zprecond.h', 'precond/zprecond.c')}
# Headers of declarations any layer may include: the public header's types
# and status codes (core/error.h's codes are spk.h's); the calls into the
# functions it declares are still checked, against the files that define them.
OPEN_HEADERS = ('include/spk.h',)
SOURCE_EXT = ('.c', '.cu')
HEADER_EXT = ('.h', '.cuh')

KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else', 'case',
            'defined', '_Alignof', 'alignof', '_Static_assert', 'static_assert',
            'decltype', 'typeof', '__typeof__', '__attribute__', '__declspec',
            '__launch_bounds__', 'new', 'delete', 'throw', 'catch', 'operator'}


def part_of(rel):
    """(part, level) of a path relative to the root, or None outside the check."""
    for path, part, level in LAYERS:
        if rel == path or (path.endswith('/') and rel.startswith(path)):
            return part, level
    return None


def edge_problem(a, b, used):
    """Why an edge from (part, level) a to b, to the file used, breaks the
    layers, or None."""
    (pa, la), (pb, lb) = a, b
    if lb > la:
        return 'up the layers'
    if lb == la and pa != pb and (pa, pb) not in PEERS:
        return 'across one level'
    if pa != pb and pb in INTERFACES and used not in INTERFACES[pb]:
        return "past %s's interface (%s)" % (pb, ', '.join(INTERFACES[pb]))
    return None


def describe(rel, pl):
    return '%s (%s %d)' % (rel, pl[0], pl[1])


# ---- reading C, C++ and CUDA ------------------------------------------------

DIRECTIVE_RE = re.compile(r'^[ \t]*#(?:\\\n|[^\n])*', re.M)
INCLUDE_RE = re.compile(r'#\s*include\s*([<"])([^>"\n]+)[>"]')
DEFINE_RE = re.compile(r'#\s*define\s+([A-Za-z_]\w*)((?:\\\n|[^\n])*)')
WORD_RE = re.compile(r'\b[A-Za-z_]\w*')
MEMBER_RE = re.compile(r'(?:\.|->)\s*$')
PAREN_RE = re.compile(r'\s*(?:\(|<<<)')          # f(...) or kernel<<<...>>>(...)


def blank(text, a, b):
    """text[a:b] as spaces, its newlines kept."""
    return re.sub(r'[^\n]', ' ', text[a:b])


def strip_comments(text):
    """text with comments and the insides of string and character literals
    blanked, the same length (so offsets and lines stay)."""
    out, i, n = [], 0, len(text)
    special = re.compile(r'//|/\*|"|\'')
    while i < n:
        m = special.search(text, i)
        if not m:
            out.append(text[i:])
            break
        out.append(text[i:m.start()])
        i = m.start()
        tok = m.group(0)
        if tok == '//':
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif tok == '/*':
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        else:
            j = i + 1
            while j < n and text[j] != tok and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            j = min(j, n)
            closed = j < n and text[j] == tok
            out.append(tok + blank(text, i + 1, j) + (tok if closed else ''))
            i = j + closed
            continue
        out.append(blank(text, i, j))
        i = j
    return ''.join(out)


def def_name(prefix):
    """The name of the function whose body follows prefix, or None."""
    s = re.sub(r'(\b(const|noexcept|override|final)\s*)+$', '', prefix.rstrip()).rstrip()
    for _ in range(3):                             # a trailing __attribute__((...))
        if not s.endswith(')'):
            return None
        depth, i = 0, len(s) - 1
        while i >= 0:
            depth += {')': 1, '(': -1}.get(s[i], 0)
            if depth == 0:
                break
            i -= 1
        m = re.search(r'([A-Za-z_]\w*)\s*$', s[:max(i, 0)])
        if i < 0 or not m:
            return None
        if m.group(1) not in ('__attribute__', '__launch_bounds__', '__declspec'):
            return None if m.group(1) in KEYWORDS else m.group(1)
        s = s[:m.start()].rstrip()
    return None


class Unit:
    """One file: its includes, macros, the functions it defines (and, for a
    header, declares) and the names its code uses."""

    def __init__(self, rel, text):
        self.rel = rel
        self.header = rel.endswith(HEADER_EXT)
        self.includes = []     # (line, spelling, angle)
        self.macros = {}       # name -> names in its body
        self.defs = {}         # name -> 'global' | 'local' | 'inline'
        self.decls = set()     # names declared at top level (prototypes)
        self.uses = {}         # name -> first line: names used inside bodies
        self.top = {}          # name -> first line: names followed by '(' at top level
        clean = strip_comments(text)
        self._newlines = [m.start() for m in re.finditer('\n', clean)]
        self._scan(DIRECTIVE_RE.sub(lambda m: self._directive(m, text), clean))

    def _directive(self, m, text):
        """Record an #include or #define; the directive blanked."""
        d = m.group(0).strip()
        if INCLUDE_RE.match(d):    # the spelling from the text (strings are blanked)
            raw = INCLUDE_RE.match(text[m.start():m.end()].strip())
            if raw:
                self.includes.append((self._line(m.start()), raw.group(2), raw.group(1) == '<'))
        mac = DEFINE_RE.match(d)
        if mac:
            self.macros[mac.group(1)] = set(WORD_RE.findall(mac.group(2))) - {mac.group(1)}
        return blank(m.string, m.start(), m.end())

    def _line(self, off):
        return bisect.bisect_left(self._newlines, off) + 1

    def _scan(self, code):
        # kinds of open braces: 'pass' (extern "C", a named namespace: what
        # is inside is top level), 'anon' (an anonymous namespace: the same,
        # but local), 'func' (a function body), 'other' (anything else)
        stack, last, marks = [], 0, []   # marks: (offset, braces open but 'pass'/'anon')
        for m in re.finditer(r'[{};]', code):
            c = m.group(0)
            top = all(k in ('pass', 'anon') for k in stack)
            if c == ';':
                if top:
                    last = m.end()
                continue
            if c == '}':
                if stack:
                    stack.pop()
                if all(k in ('pass', 'anon') for k in stack):
                    last = m.end()
            elif not top:
                stack.append('other')
            else:
                stack.append(self._open(code[last:m.start()], stack))
                if stack[-1] in ('pass', 'anon'):
                    last = m.end()
            marks.append((m.start(), sum(k not in ('pass', 'anon') for k in stack)))
        starts = [p for p, _ in marks]
        for m in WORD_RE.finditer(code):
            name, at = m.group(0), m.start()
            if name in KEYWORDS or MEMBER_RE.search(code, max(0, at - 8), at):
                continue
            k = bisect.bisect_left(starts, at)
            if k and marks[k - 1][1]:
                self.uses.setdefault(name, self._line(at))
            elif PAREN_RE.match(code, m.end()):
                self.top.setdefault(name, self._line(at))
        self.decls = set(self.top) - set(self.defs)

    def _open(self, prefix, stack):
        """The kind of a brace opened at top level after prefix; records a
        function definition."""
        if re.search(r'\bextern\s*"\s*"\s*$', prefix) or re.search(r'\bnamespace\s+\w+\s*$', prefix):
            return 'pass'
        if re.search(r'\bnamespace\s*$', prefix):
            return 'anon'
        name = def_name(prefix)
        if not name:
            return 'other'
        if self.header:
            kind = 'inline'
        elif 'anon' in stack or re.search(r'\bstatic\b', prefix):
            kind = 'local'
        else:
            kind = 'global'
        self.defs.setdefault(name, kind)
        return 'func'


# ---- the tree ---------------------------------------------------------------

def checked_files(root):
    """Paths (relative to root) of the files in the layers."""
    found = []
    for path, _, _ in LAYERS:
        full = os.path.join(root, path)
        if not path.endswith('/'):
            if os.path.isfile(full):
                found.append(path)
            continue
        for d, _, files in os.walk(full):
            for f in files:
                if f.endswith(SOURCE_EXT + HEADER_EXT):
                    found.append(os.path.relpath(os.path.join(d, f), root).replace(os.sep, '/'))
    return sorted(set(found))


def resolve_include(root, rel, spelling, angle):
    """The file an #include names, relative to root, or None (a system header)."""
    places = ([] if angle else [os.path.dirname(rel)]) + ['', 'include']
    for p in places:
        cand = os.path.normpath(os.path.join(root, p, spelling))
        if os.path.isfile(cand):
            return os.path.relpath(cand, root).replace(os.sep, '/')
    return None


def include_closure(units, inc):
    """For each unit, every file it includes, directly or not."""
    closure = {}
    for u in units:
        seen, todo = set(), list(inc.get(u, ()))
        while todo:
            h = todo.pop()
            if h not in seen and h != u:
                seen.add(h)
                todo.extend(inc.get(h, ()))
        closure[u] = seen
    return closure


def used_names(u, visible):
    """{name: line} that u uses, the bodies of the macros it uses expanded."""
    names = dict(u.uses)
    todo = [(n, l) for n, l in list(u.uses.items()) + list(u.top.items())]
    expanded = set()
    while todo:
        n, line = todo.pop()
        if n in expanded or n not in visible:
            continue
        expanded.add(n)
        for w in visible[n]:
            names.setdefault(w, line)
            todo.append((w, line))
    return names


def scan_calls(units, inc):
    """Call edges from the sources: {(user, definer): {name: line}}."""
    global_def, inline_def = {}, {}
    for u in units.values():
        for name, kind in u.defs.items():
            (global_def if kind == 'global' else inline_def if kind == 'inline' else {}) \
                .setdefault(name, set()).add(u.rel)
    closure = include_closure(units, inc)
    edges = {}
    for u in units.values():
        seen = [units[h] for h in closure[u.rel] if h in units] + [u]
        visible = {}
        for v in seen:
            visible.update(v.macros)
        declared = set().union(*(v.decls for v in seen if v.header))
        for name, line in used_names(u, visible).items():
            if name in u.defs:
                continue
            targets = {h for h in inline_def.get(name, ()) if h in closure[u.rel]}
            definers = global_def.get(name, ())
            if not targets and len(definers) == 1 and (name.startswith('spk_') or name in declared):
                targets = set(definers)
            for t in targets - {u.rel}:
                edges.setdefault((u.rel, t), {})[name] = line
    return edges


def nm_calls(build, wanted):
    """Call edges from the objects of a build: {(user, definer): {name: None}}."""
    cmf = os.path.join(build, 'CMakeFiles')
    if not os.path.isdir(cmf):
        sys.exit('check_layers: %s has no CMakeFiles folder: is it a CMake build?' % build)
    dirs = []
    listed = os.path.join(cmf, 'TargetDirectories.txt')
    if os.path.isfile(listed):    # the targets of the current configuration only
        with open(listed) as f:
            dirs = [l.strip() for l in f if l.strip().startswith(os.path.abspath(cmf) + os.sep)]
    if not dirs:
        dirs = [os.path.join(cmf, d) for d in os.listdir(cmf) if d.endswith('.dir')]
    owner = {}                    # object -> source
    for d in dirs:
        for top, _, files in os.walk(d):
            for f in files:
                src = os.path.relpath(os.path.join(top, f[:-2]), d).replace(os.sep, '/')
                if f.endswith('.o') and src in wanted:
                    owner[os.path.join(top, f)] = src
    if not owner:
        sys.exit('check_layers: no objects of the checked sources under %s: build it first' % cmf)
    defined, undefined = {}, {}
    objs = sorted(owner)
    for k in range(0, len(objs), 200):
        out = subprocess.run(['nm', '-P', '-A'] + objs[k:k + 200], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            obj, _, rest = line.partition(': ')
            f = rest.split()
            if len(f) < 2 or obj not in owner:
                continue
            if f[1] == 'T':
                defined.setdefault(f[0], set()).add(owner[obj])
            elif f[1] == 'U':
                undefined.setdefault(owner[obj], set()).add(f[0])
    edges = {}
    for src, syms in undefined.items():
        for s in syms:
            for t in defined.get(s, set()) - {src}:
                edges.setdefault((src, t), {})[s] = None
    return edges


# ---- cycles -------------------------------------------------------------------

def components(nodes, edges):
    """The strongly connected components of more than one node (Tarjan's
    algorithm, without recursion)."""
    succ = {n: [] for n in nodes}
    for a, b in sorted(edges):
        succ[a].append(b)
    index, low, on, stack, out = {}, {}, set(), [], []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, i = work[-1]
            if i < len(succ[v]):
                work[-1] = (v, i + 1)
                w = succ[v][i]
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while not comp or comp[-1] != v:
                    comp.append(stack.pop())
                    on.discard(comp[-1])
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


def cycle_path(comp, edges):
    """A shortest cycle through the first file of a component: [a, ..., a]."""
    start, members = comp[0], set(comp)
    succ = {}
    for a, b in sorted(edges):
        if a in members and b in members:
            succ.setdefault(a, []).append(b)
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for a in frontier:
            for b in succ.get(a, ()):
                if b == start:
                    path = [a]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return path[::-1] + [start]
                if b not in prev:
                    prev[b] = a
                    nxt.append(b)
        frontier = nxt
    return comp + [start]


# ---- the check ----------------------------------------------------------------

def names(d, limit=3):
    ks = sorted(d)
    return ', '.join(ks[:limit]) + (', ...' if len(ks) > limit else '')


def check(root, build=None, calls='both'):
    """The violations in the tree at root, as sorted lines."""
    files = checked_files(root)
    units = {}
    for rel in files:
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            units[rel] = Unit(rel, f.read())
    where = {rel: part_of(rel) for rel in files}
    out, inc = [], {}
    for u in units.values():
        for line, spelling, angle in u.includes:
            t = resolve_include(root, u.rel, spelling, angle)
            if t is None or t == u.rel:
                continue
            inc.setdefault(u.rel, set()).add(t)
            if t in OPEN_HEADERS:
                continue
            tp = part_of(t)
            why = 'outside the layers' if tp is None else edge_problem(where[u.rel], tp, t)
            if why:
                out.append('%s:%d: includes %s: %s, %s -> %s' % (
                    u.rel, line, t, why, describe(u.rel, where[u.rel]),
                    describe(t, tp) if tp else t))
    edges = {}
    if calls in ('scan', 'both'):
        for k, v in scan_calls(units, inc).items():
            edges.setdefault(k, {}).update(v)
    if build and calls in ('nm', 'both'):
        for k, v in nm_calls(build, {f for f in files if f.endswith(SOURCE_EXT)}).items():
            e = edges.setdefault(k, {})
            for s in v:
                e.setdefault(s, None)
    for (a, b), syms in sorted(edges.items()):
        why = edge_problem(where[a], where[b], b)
        if why:
            lines = [l for l in syms.values() if l]
            at = '%s:%d' % (a, min(lines)) if lines else a
            out.append('%s: calls %s in %s: %s, %s -> %s' % (
                at, names(syms), b, why, describe(a, where[a]), describe(b, where[b])))
    for comp in components(files, edges):
        path = cycle_path(comp, edges)
        hops = ' -> '.join('%s (%s)' % (b, names(edges[(a, b)], 2)) for a, b in zip(path, path[1:]))
        more = '' if len(comp) == len(path) - 1 else \
            '; %d files call each other: %s' % (len(comp), ', '.join(comp))
        out.append('%s: call cycle: %s -> %s%s' % (path[0], path[0], hops, more))
    return sorted(set(out))


def main(argv=None):
    ap = argparse.ArgumentParser(description='Check the include and call edges of spk '
                                             'against its layers.')
    ap.add_argument('--build', metavar='DIR',
                    help='a CMake build of the tree: call edges from its objects (nm)')
    ap.add_argument('--calls', choices=('nm', 'scan', 'both'), default='both',
                    help='where call edges come from (default both; nm needs --build)')
    ap.add_argument('--root', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'),
                    help="the source tree (default: this script's repository)")
    a = ap.parse_args(argv)
    if a.calls == 'nm' and not a.build:
        ap.error('--calls nm needs --build DIR')
    violations = check(os.path.abspath(a.root), os.path.abspath(a.build) if a.build else None,
                       a.calls)
    for v in violations:
        print(v)
    if violations:
        print('check_layers: %d violation%s' % (len(violations), 's'[:len(violations) != 1]),
              file=sys.stderr)
    return 1 if violations else 0


if __name__ == '__main__':
    sys.exit(main())
