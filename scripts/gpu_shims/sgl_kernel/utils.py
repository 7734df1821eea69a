"""`sgl_kernel.utils` of the GPU-check stand-in: the capability query SGLang's Triton backend makes at construction
(triton_backend.py:71), answered by SGLang's own in-tree twin (sglang.kernels.jit.utils.is_arch_support_pdl: compute
capability major >= 9); any other name raises when called, as in the package's other modules."""
from sgl_kernel import _Missing

def is_arch_support_pdl() -> bool:
    from sglang.kernels.jit.utils import is_arch_support_pdl as sglang_twin
    return sglang_twin()

def __getattr__(name):
    if name.startswith('__'): raise AttributeError(name)
    return _Missing(f"utils.{name}")
