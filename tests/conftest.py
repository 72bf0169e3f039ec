import sys
from pathlib import Path

# tests/ holds small helper modules (trap_fixtures) imported by the tests
sys.path.insert(0, str(Path(__file__).resolve().parent))
