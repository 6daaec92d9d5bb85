"""Lagged and Similar from soft to rigid, in Coulomb and in Drake 1.58 side by
side: the 40-body walled clutter (δt = 10 ms, 10 s) at per-geometry
stiffnesses from 1e5 to 1e14 N/m (Hunt & Crossley dissipation 10 s/m), each
engine's run told apart by where it fails.

`make bench-stiff-peers` runs it (Drake in its own Python 3.12 venv, as
`make bench-peers` makes it) and, with --write-docs, rewrites
docs/stiff_contact_drake.md and its plot. Coulomb runs through its Python
package, one run per setting; Drake through drake_scenes.py, one process per
setting (run_peers.run_irrotational). A run that fails stops at the first
step its solver could not take; its time per step is then left out.

    PYTHONPATH=build/python .venv/bin/python bench/peers/stiff_sweep.py \\
        --drake-python .venv-drake/bin/python --write-docs
"""

import argparse
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import run_peers  # noqa: E402

STIFFNESSES = tuple(10.0**exponent for exponent in range(5, 15))
DURATION = 10.0
MODELS = ("lagged", "similar")
ENGINES = (("coulomb", "Coulomb", "tab:blue"), ("drake", "Drake 1.58", "tab:red"))


def failures(rows, engine, model):
    """The stiffnesses at which `engine` could not run `model` through."""
    return [r["stiffness"] for r in rows
            if r["model"] == model and r[engine]["failed_at"] is not None]


def deepest_end(rows, engine, model):
    """The deepest overlap [m] at the end of `engine`'s runs of `model` that
    got through (None if none did)."""
    depths = [r[engine]["penetration_end"] for r in rows
              if r["model"] == model and r[engine]["failed_at"] is None]
    return max(depths) if depths else None


def reading(rows):
    """One sentence per model: from which stiffness on each engine fails, and
    how deep the bodies of the runs that got through overlap at their end."""
    sentences = []
    for model in MODELS:
        parts = []
        for engine, name, _ in ENGINES:
            failed = failures(rows, engine, model)
            if not failed:
                part = f"{name} runs it through at every stiffness"
            else:
                ran = [r["stiffness"] for r in rows
                       if r["model"] == model and r["stiffness"] not in failed]
                part = (f"{name} fails at {len(failed)} of {len(failed) + len(ran)} "
                        f"stiffnesses, from {min(failed):.0e} N/m on"
                        + ("" if not ran or max(ran) < min(failed)
                           else f" (it runs through at {max(ran):.0e})"))
            depth = deepest_end(rows, engine, model)
            if depth is not None:
                part += (f", its bodies overlapping by at most {1e3 * depth:.2f} mm at the end"
                         f" of the runs that got through")
            parts.append(part)
        sentences.append(f"{model.capitalize()}: " + "; ".join(parts) + ".")
    return " ".join(sentences)


def plot(rows, path):
    """Per model: the simulated time each engine got through, and its time
    per step where it got through the whole run."""
    figure, axes = plt.subplots(2, len(MODELS), figsize=(10, 6.5), sharex=True)
    for column, model in enumerate(MODELS):
        mine = [r for r in rows if r["model"] == model]
        k = [r["stiffness"] for r in mine]
        for engine, name, color in ENGINES:
            reached = [r["duration"] if r[engine]["failed_at"] is None
                       else r[engine]["failed_at"] for r in mine]
            axes[0, column].plot(k, reached, "o-", color=color, label=name)
            through = [(r["stiffness"], r[engine]["ms"]) for r in mine
                       if r[engine]["failed_at"] is None]
            if through:
                axes[1, column].plot(*zip(*through), "o-", color=color, label=name)
        axes[0, column].set_title(f"{model.capitalize()}, 40-body walled clutter")
        axes[0, column].set_ylabel("simulated before failing [s]")
        axes[1, column].set_ylabel("ms per step (runs that got through)")
        axes[1, column].set_xlabel("stiffness per geometry [N/m]")
        for row in range(2):
            axes[row, column].set_xscale("log")
            axes[row, column].grid(True, which="both", alpha=0.3)
        axes[1, column].set_yscale("log")
        axes[0, column].legend()
    figure.suptitle("make bench-stiff-peers (bench/peers/stiff_sweep.py)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_docs(rows, text_table, drake):
    plot(rows, os.path.join(run_peers.DOCS, "stiff_contact_drake.png"))
    run_peers.write_page("stiff_contact_drake.md", drake,
                         dict(TABLE=text_table, READING=reading(rows)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drake-python", metavar="PYTHON", required=True,
                        help="a Python with pydrake (drake==1.58.0)")
    parser.add_argument("--quick", action="store_true",
                        help="two stiffnesses for 0.5 s (a smoke test)")
    parser.add_argument("--write-docs", action="store_true",
                        help="write docs/stiff_contact_drake.md and its plot")
    args = parser.parse_args()
    if args.write_docs and args.quick:  # before minutes of runs, not after
        parser.error("--write-docs takes the whole sweep, not --quick")
    drake = run_peers.drake_version(args.drake_python)
    stiffnesses, duration = ((1e6, 1e12), 0.5) if args.quick else (STIFFNESSES, DURATION)
    print(run_peers.table(run_peers.IRR_HEADER, []), flush=True)
    rows = run_peers.run_irrotational(args.drake_python, stiffnesses, duration)
    text_table = run_peers.table(run_peers.IRR_HEADER,
                                 [run_peers.format_irr_row(r) for r in rows])
    print(reading(rows))
    if args.write_docs:
        write_docs(rows, text_table, drake)


if __name__ == "__main__":
    main()
