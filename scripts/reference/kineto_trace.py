"""Reading a Kineto (PyTorch profiler) trace as the reference scripts of this
folder do: every number kept exact (times are epoch microseconds with
nanosecond digits; a float loses ~0.3 us at that magnitude)."""
import gzip
from decimal import Decimal, ROUND_HALF_UP
import json


def load(path):
    """The trace's events (.json or .json.gz)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        t = json.load(f, parse_float=Decimal)  # ns digits of epoch-us times kept
    return t["traceEvents"] if isinstance(t, dict) else t  # Older Kineto wrote a bare event list.


def ps(x):
    """Microseconds as integer picoseconds, as the reader keeps them."""
    return int((Decimal(x) * 1000000).to_integral_value(ROUND_HALF_UP))
