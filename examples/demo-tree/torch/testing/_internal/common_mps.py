# Demo test expectations for the MPS backend (metal-kernel skill).
#
# Made up for the examples; plays the part of PyTorch's
# torch/testing/_internal/common_mps.py. The MPS OpInfo tests consult these
# tables: an operator named here is expected to fail (or is skipped) on MPS
# for the dtypes given. When an operator gains a native Metal kernel its entry
# must go, otherwise the test keeps expecting a failure that no longer happens.

import torch

# Operators with no MPS kernel at all: calling them raises NotImplementedError.
# op name -> dtypes affected (None: every dtype)
XFAIL_NOT_IMPLEMENTED = {
    "i0": None,
}

# Operators that run on MPS but give wrong results or errors today.
# op name -> (dtypes affected or None, reason)
XFAIL_WRONG_ON_MPS = {
    "atan2": ([torch.int64], "MPSGraph path rejects int64 inputs"),
    "div": ([torch.int64], "MPSGraph floor division rounds int64 through float"),
    "sqrt": ([torch.complex64], "MPSGraph square root has no complex support"),
}

# Operators whose tests are skipped on MPS (flaky or too slow).
# op name -> reason
SKIP_ON_MPS = {
    "hypot": "bfloat16 reference is too coarse for the default tolerance",
}


def mps_expectation(op_name, dtype):
    """Return 'not-implemented', 'xfail', 'skip' or None for op_name at dtype."""
    if op_name in XFAIL_NOT_IMPLEMENTED:
        dtypes = XFAIL_NOT_IMPLEMENTED[op_name]
        if dtypes is None or dtype in dtypes:
            return "not-implemented"
    if op_name in XFAIL_WRONG_ON_MPS:
        dtypes, _reason = XFAIL_WRONG_ON_MPS[op_name]
        if dtypes is None or dtype in dtypes:
            return "xfail"
    if op_name in SKIP_ON_MPS:
        return "skip"
    return None
