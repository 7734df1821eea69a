"""Names a notebook's cell uses at run time before any earlier cell defines them (a later cell does): what a `#| slow`
cell placed above its definitions hits only under `--flags slow`. Exit 1 and list them."""
import ast, builtins, json, re, sys
from pathlib import Path

def _defined(tree) -> set:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)): out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)): out.add(node.id)
        elif isinstance(node, ast.alias): out.add((node.asname or node.name).split('.')[0])
        elif isinstance(node, ast.arg): out.add(node.arg)
    return out

def _loaded_now(tree) -> set:
    "Names a cell loads when it runs (not those inside function or class bodies, which resolve later)."
    out, todo = set(), list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo += node.decorator_list if hasattr(node, 'decorator_list') else []
            todo += node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load): out.add(node.id)
        todo += list(ast.iter_child_nodes(node))
    return out

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
    "Negative control: a cell using a later cell's name is listed; a function body, a cell's own name and a builtin are not."
    import tempfile
    cells = ['x = later(1)', 'def f(): return later2()', 'y = len([z for z in range(3)])', 'def later(a): return a', 'def later2(): pass']
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
