# Test fixture: expected failures of the MPS test suite.


def mps_ops_modifier(ops):
    XFAILLIST = {
        # 'sqrt' passes since its Metal kernel landed
        "cumsum": [torch.int64],
        "nn.functional.gelu": None,
    }
    SKIPLIST = {
        "unique",
    }
    return XFAILLIST, SKIPLIST
