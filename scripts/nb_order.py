"""Names a notebook's cell uses at run time before any earlier cell defines them (a later cell does): what a `#| slow`
cell placed above its definitions hits only under `--flags slow`. Exit 1 and list them."""
import ast, builtins, json, re, sys
from pathlib import Path

def _run_now(tree):
    "The nodes a cell runs when it runs: not the bodies of its functions and lambdas (they resolve names later), but their decorators and defaults."
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo += getattr(node, 'decorator_list', []) + node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        else: todo += list(ast.iter_child_nodes(node))

def _defined(tree) -> set:
    "Names a cell binds at module level: functions, classes, imports, assignments outside function bodies."
    out = set()
    for node in _run_now(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)): out.add(node.id)
        elif isinstance(node, ast.alias): out.add((node.asname or node.name).split('.')[0])
        elif isinstance(node, ast.ExceptHandler) and node.name: out.add(node.name)
    return out | {n for f in ast.walk(tree) if isinstance(f, ast.Global) for n in f.names}   # `global x` in a function binds x too

def _loaded_now(tree) -> set:
    "Names a cell loads when it runs."
    return {n.id for n in _run_now(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}

def check(nb:Path) -> list[str]:
    cells = [c for c in json.loads(nb.read_text())['cells'] if c['cell_type'] == 'code']
    trees = []
    for c in cells:
        src = '\n'.join(l for l in ''.join(c['source']).splitlines() if not re.match(r'\s*[%!]', l))
        try: trees.append(ast.parse(src))
        except SyntaxError: trees.append(ast.parse(''))
    defs = [_defined(t) for t in trees]
    later_defs = {}
    for i, d in enumerate(defs):
        for n in d: later_defs.setdefault(n, i)
    bad = []
    for i, t in enumerate(trees):
        for n in sorted(_loaded_now(t) - defs[i] - set(dir(builtins))):
            first = later_defs.get(n)
            if first is not None and first > i:
                bad.append(f"{nb.name}: code cell {i} uses {n!r}, first defined in code cell {first}")
    return bad

def self_test():
    "Negative control: a cell using a later cell's name is listed (a parameter of that name in the cell does not hide it); a function body, a cell's own name and a builtin are not."
    import tempfile
    cells = ['x = later(1)\ndef g(later): return later', 'def f(): return later2()', 'y = len([z for z in range(3)])', 'def later(a): return a',
             'def later2(): pass']
    nb = {'cells': [{'cell_type': 'code', 'source': [s]} for s in cells]}
    with tempfile.TemporaryDirectory() as d:
        p = Path(d)/'t.ipynb'; p.write_text(json.dumps(nb))
        got = check(p)
    assert got == ["t.ipynb: code cell 0 uses 'later', first defined in code cell 3"], got

if __name__ == '__main__':
    self_test()
    bad = [b for p in (sys.argv[1:] or sorted(Path('nbs').glob('*.ipynb'))) for b in check(Path(p))]
    print('\n'.join(bad) or 'every name a cell uses is defined in an earlier cell or the cell itself')
    sys.exit(1 if bad else 0)
