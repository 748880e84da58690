#!/bin/sh
# `make demo`'s walkthroughs: every command shown in examples/*.md runs on
# a copy of the demo tree and prints what is shown; mps-verify ends clean.
repo=${MK_REPO:-$(cd "$(dirname "$0")/../.." && pwd)}
sh "$repo/examples/run-demo.sh"
