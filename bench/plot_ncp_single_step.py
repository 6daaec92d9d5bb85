"""Plots of the single-step benchmark (AL §VII-A1/B1) from `coulomb bench ncp --csv`.

Residual (FCLIB natural map) against iterations and against wall time for
CANAL, SubADMM and PGS: every case as a faint line, the median per
iteration as a bold one; SAP's regularized solution as a reference (its
residual and time: it solves a different, compliant problem).

usage: plot_ncp_single_step.py HISTORIES.csv OUTPUT_PREFIX
writes OUTPUT_PREFIX_iterations.png and OUTPUT_PREFIX_time.png
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"canal": "tab:blue", "subadmm": "tab:orange", "pgs": "tab:green", "sap": "tab:red"}


def read_histories(path):
    """{solver: {case: [(iteration, time, residual), ...]}}"""
    histories = defaultdict(lambda: defaultdict(list))
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            histories[row["solver"]][int(row["case"])].append(
                (int(row["iteration"]), float(row["time_s"]), float(row["residual"])))
    return histories


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def median_curve(cases, column):
    """Median over cases of `column` at each iteration (a case that stopped keeps its last value)."""
    longest = max(len(history) for history in cases.values())
    curve = []
    for k in range(longest):
        values = [history[min(k, len(history) - 1)][column] for history in cases.values()]
        curve.append(median(values))
    return curve


def plot(histories, x_column, x_label, output, log_x):
    figure, axes = plt.subplots(figsize=(7, 4.5))
    for solver in ("canal", "subadmm", "pgs"):
        cases = histories.get(solver)
        if not cases:
            continue
        for history in cases.values():
            axes.plot([row[x_column] for row in history], [row[2] for row in history],
                      color=COLORS[solver], alpha=0.06, linewidth=0.8)
        xs = median_curve(cases, x_column) if x_column == 1 else \
            list(range(1, 1 + max(len(h) for h in cases.values())))
        axes.plot(xs, median_curve(cases, 2), color=COLORS[solver], linewidth=2.2,
                  label=f"{solver} (median)")
    sap = histories.get("sap")
    if sap:
        residual = median([history[0][2] for history in sap.values()])
        axes.axhline(residual, color=COLORS["sap"], linestyle="--", linewidth=1.2,
                     label="SAP, regularized (median)")
        if x_column == 1:
            axes.plot([median([history[0][1] for history in sap.values()])], [residual],
                      "o", color=COLORS["sap"])
    axes.set_yscale("log")
    if log_x:
        axes.set_xscale("log")
    axes.set_xlabel(x_label)
    axes.set_ylabel("natural-map residual (normalized)")
    axes.set_title("Dish pile, one step, random wrenches (AL §VII-A1)")
    axes.grid(True, which="major", alpha=0.3)
    axes.legend(loc="lower left", fontsize=8)
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    print(f"wrote {output}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    histories = read_histories(sys.argv[1])
    plot(histories, 0, "iterations (CANAL: outer)", sys.argv[2] + "_iterations.png", True)
    plot(histories, 1, "wall time [s]", sys.argv[2] + "_time.png", True)


if __name__ == "__main__":
    main()
