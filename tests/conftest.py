import sys
from pathlib import Path

# tests/ holds small helper modules (runtime_harness, runtime_case_table) imported by the tests
sys.path.insert(0, str(Path(__file__).resolve().parent))
