"""Where the time of a collapsing pile goes, phase by phase: the clutter's
four columns without walls (320 bodies by default) run once with Coulomb's
speculative contacts (the default look-ahead, δt + τ_d) and once without
(look-ahead 0), and for each window of simulated time the table gives the
slowest island's Newton iterations per step, the solve's time per step and
per Newton iteration, the contacts, the working-set rounds and the islands
per step. At the end it counts the bodies in the bottom layer (centre below
one body size, 0.1 m) and those stacked above it: the two runs end in
different piles, which is what their islands, and so the cost of an
iteration, follow.

    PYTHONPATH=build/python .venv/bin/python bench/collapse_phases.py [--bodies N]
        [--duration S] [--window S]
"""

import argparse
import time

import coulomb

BOTTOM_LAYER_HEIGHT = 0.1  # [m] one body size: spheres of r = 5 cm, boxes of 10 cm
COLUMNS = ("iterations", "solve ms", "µs / iteration", "contacts", "rounds", "islands")


def run_steps(bodies, duration, lookahead):
    """Steps the collapse and returns each step's StepStats and the final
    bottom-layer count. lookahead None: the scene's default."""
    options = {"bodies": bodies, "walls": False}
    if lookahead is not None:
        options["lookahead"] = lookahead
    sim = coulomb.Simulation.from_builtin("clutter", **options)
    sim.recording = False
    steps = round(duration / sim.time_step)
    stats = [sim.step() for _ in range(steps)]
    heights = [sim.body_position(name)[2] for name in sim.body_names]
    bottom = sum(height < BOTTOM_LAYER_HEIGHT for height in heights)
    return stats, bottom, len(heights)


def window_row(window):
    """Means per step over a window of StepStats, in COLUMNS' order."""
    n = len(window)
    iterations = sum(s.iterations for s in window)
    solve = sum(s.solve_time_s for s in window)
    return (iterations / n, 1e3 * solve / n,
            1e6 * solve / iterations if iterations else 0.0,
            sum(s.num_contacts for s in window) / n,
            sum(s.working_set_rounds for s in window) / n,
            sum(s.islands for s in window) / n)


def print_table(label, stats, time_step, window_steps, bottom, total):
    print(f"\n{label}: the bottom layer holds {bottom} of {total} bodies at the end"
          f" ({total - bottom} stacked above it)")
    print("| t [s] | " + " | ".join(COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for start in range(0, len(stats), window_steps):
        window = stats[start:start + window_steps]
        row = window_row(window)
        t0, t1 = start * time_step, (start + len(window)) * time_step
        print(f"| {t0:.2f}–{t1:.2f} | {row[0]:.1f} | {row[1]:.2f} | {row[2]:.0f} | "
              f"{row[3]:.0f} | {row[4]:.2f} | {row[5]:.0f} |")
    whole = window_row(stats)
    worst_e_m = max(s.momentum_error for s in stats)
    print(f"whole run: {whole[0]:.2f} Newton iterations and {whole[1]:.2f} ms of solve "
          f"per step, {whole[2]:.0f} µs per iteration; max e_m {worst_e_m:.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=int, default=320, help="bodies (default 320)")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds (default 3)")
    parser.add_argument("--window", type=float, default=0.5,
                        help="seconds of simulated time per row (default 0.5)")
    args = parser.parse_args()
    if args.bodies < 1 or args.duration <= 0 or args.window <= 0:
        parser.error("--bodies must be ≥ 1 and --duration, --window > 0")
    for label, lookahead in (("default look-ahead (δt + τ_d)", None), ("look-ahead 0", 0.0)):
        start = time.perf_counter()
        stats, bottom, total = run_steps(args.bodies, args.duration, lookahead)
        time_step = args.duration / len(stats)
        window_steps = max(1, round(args.window / time_step))
        print_table(label, stats, time_step, window_steps, bottom, total)
        print(f"({time.perf_counter() - start:.2f} s of wall time)")


if __name__ == "__main__":
    main()
