# A syntax error in a .metal file the script reads: the compiler's message
# names that file and its line.
import os
import torch

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "typo.metal")) as f:
    src = f.read()
try:
    torch.mps.compile_shader(src)
except RuntimeError as e:
    print("RuntimeError:", e)
