// The side panel: the run's solver statistics against time (stats.json's
// per_step), one uPlot chart each, with a cursor line that follows playback.
import uPlot from "uplot";

// [key in per_step, title, log scale]
const SERIES = [
  ["iterations", "solver iterations", false],
  ["momentum_error", "momentum error e_m", true],
  ["ncp_residual", "NCP residual", true],
  ["contacts", "contacts", false],
  ["penetration_max", "max penetration [m]", false],
  ["energy", "mechanical energy [J]", false],
];

function column(steps, key) {
  return steps.map((step) => (step[key] === null || step[key] === undefined ? null : step[key]));
}

// A log scale needs positive values: zeros and gaps become null.
function positive(values) {
  return values.map((v) => (v !== null && v > 0 ? v : null));
}

// Tick labels of a log axis: 1e-6, 1e-8, ...
function exponents(chart, ticks) {
  return ticks.map((v) => (v === null ? "" : v.toExponential(0)));
}

// Tick labels of a linear axis: small values (penetrations) in exponent form.
function numbers(chart, ticks) {
  const largest = Math.max(...ticks.map(Math.abs));
  return ticks.map((v) => (largest > 0 && largest < 0.01 ? v.toExponential(1) : String(+v.toPrecision(6))));
}

// The y range of a linear chart: uPlot's padded range, except that a
// constant series (no penetration in a whole run) gets a small band about
// its value instead of uPlot's default 0–100.
function linearRange(chart, min, max) {
  if (min === max) {
    const pad = Math.abs(min) * 0.1 || 1e-9;
    return [min - pad, max + pad];
  }
  return uPlot.rangeNum(min, max, 0.1, true);
}

export class Plots {
  constructor(container, stats) {
    const steps = stats.per_step || [];
    const time = steps.map((step) => step.time);
    this.charts = [];
    this.cursors = [];
    for (const [key, title, log] of SERIES) {
      let values = column(steps, key);
      if (log) values = positive(values);
      if (!values.some((v) => v !== null)) continue; // e.g. no NCP residual under SAP
      const box = document.createElement("div");
      box.className = "plot";
      box.dataset.series = key;
      container.appendChild(box);
      const chart = new uPlot(
        {
          title,
          width: Math.max(container.clientWidth - 16, 200),
          height: 130,
          legend: { show: false },
          cursor: { drag: { x: true, y: false } },
          scales: { x: { time: false }, y: log ? { distr: 3 } : { range: linearRange } },
          axes: [{ size: 30 }, { size: 60, values: log ? exponents : numbers }],
          series: [{}, { stroke: "#1f77b4", width: 1.25, spanGaps: false, points: { show: false } }],
          hooks: { setSelect: [(u) => this.zoomTo(u)] },
        },
        [time, values],
        box,
      );
      const line = document.createElement("div");
      line.className = "plot-cursor";
      chart.over.appendChild(line);
      this.charts.push(chart);
      this.cursors.push(line);
    }
    this.onSeek = () => {};
  }

  // A drag on a chart seeks the playback to where it started.
  zoomTo(chart) {
    if (chart.select.width > 0) this.onSeek(chart.posToVal(chart.select.left, "x"));
  }

  // Number of points of each chart (one per step).
  pointCounts() {
    return this.charts.map((chart) => chart.data[0].length);
  }

  setTime(t) {
    this.time = t;
    this.charts.forEach((chart, i) => {
      const x = chart.valToPos(t, "x");
      this.cursors[i].style.transform = `translateX(${x}px)`;
    });
  }

  resize(width) {
    for (const chart of this.charts) chart.setSize({ width: Math.max(width - 16, 200), height: 130 });
    if (this.time !== undefined) this.setTime(this.time);
  }
}
