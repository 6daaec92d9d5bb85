"""Speed against depth in the collapsing piles: Coulomb at several
look-aheads beside MuJoCo at several steps, measured in one run.

Coulomb finds speculative contacts by sweeping each body ahead at its speed
(`--lookahead S`; by default δt + τ_d = 20 ms in the clutter, as far as
SAP's contacts engage a closing gap). A shorter sweep finds fewer contacts
ahead of impact: the step gets cheaper and the bodies meet deeper. MuJoCo's
soft contacts sink by an amount set by their time constant; a shorter step
with contacts as stiff as it allows (mujoco_scenes.clutter_mjcf's substeps)
sinks less and costs more. Each engine's runs trace a curve of the deepest
penetration against the wall time per 10 ms simulated; the curve lower and
further left is the better trade. Every Coulomb step is certified (e_m ≤
1e-6); the table prints the worst e_m of each run.

Each scene runs all its settings in turn, round after round, and each keeps
its fastest run (run_peers.fastest_of_alternate_runs). Prints one table per
scene and, with --write-docs, writes docs/lookahead.md and
docs/peers_penetration_tradeoff.png.

    make bench-lookahead
    PYTHONPATH=build/python .venv/bin/python bench/peers/penetration_tradeoff.py [--quick]
"""

import argparse
import os
import time

import coulomb
import mujoco

import mujoco_scenes
import run_peers
from run_peers import COLUMNS, GRID, Case

CLUTTER_DT = 0.01  # [s] the clutter's step (and its τ_d: the default sweep is 2 δt)
# Coulomb's look-aheads as multiples of δt (2: the default, δt + τ_d).
LOOKAHEAD_STEPS = (0.0, 0.5, 1.0, 1.5, 2.0)
# MuJoCo's steps δt/k, each with contacts as stiff as that step allows.
MUJOCO_SUBSTEPS = (1, 2, 4)


def scenes(quick):
    if quick:
        return [Case("clutter", COLUMNS, 40, False, 4, 1.0)]
    return [Case("clutter", COLUMNS, 160, False, 4, 5.0),
            Case("clutter", COLUMNS, 320, False, 4, 3.0),
            Case("clutter", GRID, 1000, False, 100, 3.0)]


def run_coulomb(sim, duration):
    """Steps `sim` over `duration`, each sim.step() timed."""
    sim.recording = False
    steps = round(duration / sim.time_step)
    elapsed, stats = 0.0, []
    for _ in range(steps):
        start = time.perf_counter()
        stats.append(sim.step())
        elapsed += time.perf_counter() - start
    depths = [s.max_penetration for s in stats]
    return dict(ms=1e3 * elapsed / steps, penetration_max=max(depths),
                penetration_mean=sum(depths) / steps,
                contacts=max(s.num_contacts for s in stats),
                iterations=sum(s.iterations for s in stats) / steps,
                error=max(s.momentum_error for s in stats),
                failed=sum(not s.converged for s in stats))


def run_mujoco(xml, duration):
    """MuJoCo over `duration`, only mj_step timed (run_peers.step_mujoco)."""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    momentum_error = run_peers.MomentumError(model)
    depths, worst = [], dict(contacts=0, error=0.0)

    def record():
        depths.append(run_peers.mujoco_penetration(data))
        worst["contacts"] = max(worst["contacts"], data.ncon)
        worst["error"] = max(worst["error"], momentum_error(data))

    timing = run_peers.step_mujoco(model, data, duration, record)
    return dict(**timing, **worst, penetration_max=max(depths),
                penetration_mean=sum(depths) / len(depths), failed=0)


def measure(case):
    """Every setting of both engines on one scene, alternating; one dict per
    setting with its label, ms per 10 ms simulated and penetration."""
    def clutter(**options):
        return coulomb.Simulation.from_builtin("clutter", bodies=case.bodies, walls=False,
                                               columns=case.columns, **options)

    xmls = [mujoco_scenes.clutter_mjcf(case.bodies, False, case.columns, substeps=k)
            for k in MUJOCO_SUBSTEPS]
    run_peers.check_same_start(f"clutter {case.bodies}", clutter(), xmls[0])
    runs = ([lambda steps=steps: run_coulomb(clutter(lookahead=steps * CLUTTER_DT),
                                             case.duration) for steps in LOOKAHEAD_STEPS] +
            [lambda xml=xml: run_mujoco(xml, case.duration) for xml in xmls])
    results = run_peers.fastest_of_alternate_runs(runs)
    settings = []
    for steps, r in zip(LOOKAHEAD_STEPS, results):
        default = " (default)" if steps == 2.0 else ""
        settings.append(dict(r, engine="Coulomb", label=f"look-ahead {steps:g} δt{default}",
                             lookahead_steps=steps))
    for k, r in zip(MUJOCO_SUBSTEPS, results[len(LOOKAHEAD_STEPS):]):
        step = "δt" if k == 1 else f"δt/{k}"
        settings.append(dict(r, engine="MuJoCo", label=f"{step}, time constant {2 / k:g} δt",
                             substeps=k, ms=k * r["ms"]))
    return settings


def reading(case, settings):
    """For each of MuJoCo's shorter steps, Coulomb's cheapest setting that
    sinks no deeper on average, and the ratio of their costs."""
    coulomb_settings = [s for s in settings if s["engine"] == "Coulomb"]
    sentences = []
    for m in [s for s in settings if s["engine"] == "MuJoCo"]:
        matching = [c for c in coulomb_settings
                    if c["penetration_mean"] <= m["penetration_mean"]]
        if not matching:
            sentences.append(f"no look-ahead sinks as little as MuJoCo at {m['label']} "
                             f"({1e3 * m['penetration_mean']:.2f} mm)")
            continue
        c = min(matching, key=lambda s: s["ms"])
        sentences.append(f"MuJoCo at {m['label'].split(',')[0]} sinks "
                         f"{1e3 * m['penetration_mean']:.2f} mm in {m['ms']:.3f} ms, Coulomb at "
                         f"{c['label']} {1e3 * c['penetration_mean']:.2f} mm in "
                         f"{c['ms']:.3f} ms ({c['ms'] / m['ms']:.2f}×)")
    return (f"At equal or lower mean depth, {case.layout}, {case.bodies} bodies: "
            + "; ".join(sentences) + ".")


HEADER = ("| engine | setting | ms per 10 ms | ÷ MuJoCo at δt | penetration max [mm] "
          "| deepest per step, mean [mm] | contacts (max) | Newton iterations per step "
          "| worst e_m |")


def table(case, settings):
    mujoco_ms = next(s["ms"] for s in settings if s.get("substeps") == 1)
    lines = [f"**{case.layout}, {case.bodies} bodies, first {case.duration:g} s**", "",
             HEADER, "|---" * 9 + "|"]
    for s in settings:
        failed = f", {s['failed']} steps failed" if s["failed"] else ""
        lines.append(f"| {s['engine']} | {s['label']} | {s['ms']:.3f} | "
                     f"{s['ms'] / mujoco_ms:.2f}× | {1e3 * s['penetration_max']:.1f} | "
                     f"{1e3 * s['penetration_mean']:.2f} | "
                     f"{s['contacts']} | {s['iterations']:.2f} | {s['error']:.1e}{failed} |")
    return "\n".join(lines + ["", reading(case, settings)])


# The plot's rows: the statistic of a run's per-step deepest penetration.
PLOT_ROWS = (("penetration_mean", "deepest penetration per step,\nmean over the run [mm]"),
             ("penetration_max", "deepest penetration\nof the run [mm]"))


def plot(measured, path):
    """Penetration against time per 10 ms, one column of panels per scene."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib import ticker
    figure, panels = plt.subplots(len(PLOT_ROWS), len(measured),
                                  figsize=(4.6 * len(measured), 8.0), squeeze=False)
    for column, (case, settings) in enumerate(measured):
        for (key, label), axes in zip(PLOT_ROWS, panels[:, column]):
            for engine, color in (("Coulomb", "tab:blue"), ("MuJoCo", "tab:orange")):
                chosen = [s for s in settings if s["engine"] == engine]
                axes.plot([s["ms"] for s in chosen], [1e3 * s[key] for s in chosen],
                          marker="o", color=color, label=engine)
                for s in chosen:
                    text = (f"{s['lookahead_steps']:g} δt" if engine == "Coulomb"
                            else ("δt" if s["substeps"] == 1 else f"δt/{s['substeps']}"))
                    axes.annotate(text, (s["ms"], 1e3 * s[key]), fontsize=7,
                                  xytext=(4, 3), textcoords="offset points", color=color)
            axes.set_xscale("log")
            axes.xaxis.set_major_locator(ticker.LogLocator(subs=(1.0, 2.0, 5.0)))
            axes.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
            axes.xaxis.set_minor_formatter(ticker.NullFormatter())
            axes.set_ylim(bottom=0)
            axes.grid(True, which="both", alpha=0.3)
            if column == 0:
                axes.set_ylabel(label)
        panels[0, column].set_title(f"{case.layout}, {case.bodies} bodies", fontsize=10)
        panels[-1, column].set_xlabel("wall time per 10 ms simulated [ms]")
    panels[0, 0].legend(fontsize=8, title="Coulomb: look-ahead\nMuJoCo: step",
                        title_fontsize=7)
    figure.suptitle("Collapsing piles: speed against depth, one thread, measured in one run",
                    fontsize=11)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def write_docs(tables, measured):
    plot(measured, os.path.join(run_peers.DOCS, "peers_penetration_tradeoff.png"))
    run_peers.write_page("lookahead.md", f"mujoco {mujoco.__version__}",
                         dict(TABLES="\n\n".join(tables)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one small scene (a smoke test)")
    parser.add_argument("--write-docs", action="store_true",
                        help="write docs/lookahead.md and docs/peers_penetration_tradeoff.png")
    args = parser.parse_args()
    tables, measured = [], []
    for case in scenes(args.quick):
        settings = measure(case)
        measured.append((case, settings))
        tables.append(table(case, settings))
        print(tables[-1] + "\n", flush=True)
    if args.write_docs:
        write_docs(tables, measured)


if __name__ == "__main__":
    main()
