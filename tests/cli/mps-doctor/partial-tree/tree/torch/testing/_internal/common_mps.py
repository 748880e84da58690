# our own stand-in for common_mps.py
