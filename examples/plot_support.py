"""What the plot scripts share: reading an example's CSV files."""
import csv
import math


def read_rows(path):
    """The rows of a CSV file, as dicts keyed by the header."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def num(cell):
    """A CSV cell as a number; an empty cell (not measured) is NaN."""
    return float(cell) if cell not in ("", None) else math.nan
