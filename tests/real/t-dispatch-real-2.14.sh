#!/bin/sh
# t-dispatch-real.sh on PyTorch 2.14.1, today's release (c10/metal era; a
# partial tree: its yaml, tags.yaml and torchgen, no C++ sources).
TREE=2.14.1 MIN_FOLDED=${MIN_FOLDED:-20} IDEMPOTENT="atan2 sqrt abs" \
  exec sh "$(dirname "$0")/t-dispatch-real.sh"
