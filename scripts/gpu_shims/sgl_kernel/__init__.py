"""A stand-in for SGLang's compiled `sgl_kernel`, for scripts/gpu_check.sh on a machine whose image has none (the lent H200s).

SGLang's quantization and layer modules import names from `sgl_kernel` at module level when CUDA is present, so without it
none of SGLang's server modules import there. This stand-in lets them import; calling any of its names raises at once, naming
it, so nothing it stands in for can compute a result. The attention paths this project checks (SGLang's Triton backend and
our kernels) never call it; a step that does fails loudly. gpu_check.sh puts it on the path only where `import sgl_kernel`
fails, and says so in its log.
"""
__version__ = '0.0.0+verify-kernel-stand-in'

class _Missing:
    def __init__(self, name): self._name = name
    def __call__(self, *a, **k): raise RuntimeError(f"sgl_kernel.{self._name} was called, but sgl_kernel is not installed here (verify_kernel's GPU-check stand-in)")
    def __getattr__(self, name):
        if name.startswith('__'): raise AttributeError(name)
        return _Missing(f"{self._name}.{name}")
    def __repr__(self): return f"<sgl_kernel stand-in {self._name}>"

def __getattr__(name):
    if name.startswith('__'): raise AttributeError(name)
    return _Missing(name)

# submodules (`from sgl_kernel.quantization import ...`) are made on demand, each with the same raising names
import importlib.abc, importlib.machinery, sys, types

class _SubmoduleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(__name__ + '.'): return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None
    def create_module(self, spec):
        m = types.ModuleType(spec.name); m.__path__ = []
        m.__getattr__ = lambda name, _p=spec.name[len(__name__) + 1:]: (_ for _ in ()).throw(AttributeError(name)) if name.startswith('__') else _Missing(f"{_p}.{name}")
        return m
    def exec_module(self, module): pass

if not any(isinstance(f, _SubmoduleFinder) for f in sys.meta_path): sys.meta_path.append(_SubmoduleFinder())
