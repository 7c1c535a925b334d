import os
import sys

# The package from this folder (the engine library is built next to it by `make pylib`).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
