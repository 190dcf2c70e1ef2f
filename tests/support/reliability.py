"""``python -m tests.support.reliability FILE``: the counts the fault tests reported, as a table.

``make reliability`` runs the fault and crash tests with ``ROLLHOUSE_RELIABILITY_REPORT``
set, then prints this table (the one in docs/reliability.md).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict

COLUMNS = ["sent", "in_flight_during_fault", "acked", "rejected", "acked_found_in_log", "lost",
           "duplicated"]  # fmt: skip


def main(path: str) -> int:
    totals: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    runs: dict[tuple[str, str], int] = defaultdict(int)
    with open(path) as lines:
        for line in lines:
            row = json.loads(line)
            key = (row.pop("kind"), row.pop("fault"))
            runs[key] += 1
            for name, value in row.items():
                totals[key][name] += value
    print("| faults | fault | runs | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|" + "---|" * len(COLUMNS))
    for (kind, fault), counts in sorted(totals.items()):
        cells = [str(counts[c]) if c in counts else "-" for c in COLUMNS]
        print(f"| {kind} | {fault} | {runs[(kind, fault)]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
