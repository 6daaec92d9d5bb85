// The side panel: the run's solver statistics against time (stats.json's
// per_step) and each robot's sensor readings at every frame (meta.sensors),
// one uPlot chart each, with a cursor line that follows playback. A live
// run's charts grow as its meta data is polled (update).
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

// One color per number a sensor reads (x, y, z of a 3-vector, ...).
const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"];

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

// Whether a chart's data has a value to draw.
function hasValues(data) {
  return data.slice(1).some((series) => series.some((v) => v !== null && v !== undefined));
}

// [times, values] of a statistic over the steps.
function statisticData(meta, key, log) {
  const steps = meta.stats.per_step || [];
  const values = column(steps, key);
  return [steps.map((step) => step.time), log ? positive(values) : values];
}

// [times, column 1, column 2, ...] of the sensor at columns [first, first +
// dimension) of its robot's readings, one row per frame (meta.time).
function sensorData(meta, robotName, first, dimension) {
  const robot = meta.sensors.find((r) => r.robot === robotName);
  const width = robot.dimensions.reduce((a, b) => a + b, 0);
  const frames = Math.min(meta.time.length, robot.readings.length / width);
  const data = [meta.time.slice(0, frames)];
  for (let c = 0; c < dimension; ++c) {
    data.push(Array.from({ length: frames }, (_, f) => robot.readings[f * width + first + c]));
  }
  return data;
}

// Every sensor of every robot: its title, the numbers it reads and how to
// find its data in the meta data.
function sensorCharts(meta) {
  const charts = [];
  for (const robot of meta.sensors || []) {
    let first = 0;
    robot.names.forEach((name, k) => {
      const dimension = robot.dimensions[k], at = first;
      const title = `${robot.robot} · ${name}` + (dimension > 1 ? ` (${dimension})` : "");
      charts.push({ title, dimension, data: (m) => sensorData(m, robot.robot, at, dimension) });
      first += dimension;
    });
  }
  return charts;
}

export class Plots {
  constructor(statisticsContainer, sensorContainer, meta) {
    this.charts = []; // every chart, with its cursor line and its data(meta)
    this.cursors = [];
    this.sources = [];
    this.statistics = [];
    this.sensors = [];
    for (const [key, title, log] of SERIES) {
      const data = (m) => statisticData(m, key, log);
      // A statistic no step has (no NCP residual under SAP) has no chart; a
      // live run's charts stay hidden until it has one (update).
      if (!meta.live && !hasValues(data(meta))) continue;
      this.statistics.push(this.add(statisticsContainer, { title, log, count: 1, data }, meta, { series: key }));
    }
    for (const sensor of sensorCharts(meta)) {
      this.sensors.push(this.add(sensorContainer, { ...sensor, log: false, count: sensor.dimension }, meta,
                                 { sensor: sensor.title }));
    }
    this.onSeek = () => {};
  }

  // A chart of `count` series, data(meta), in `container`.
  add(container, { title, log, count, data }, meta, dataset) {
    const box = document.createElement("div");
    box.className = "plot";
    Object.assign(box.dataset, dataset);
    container.appendChild(box);
    // A vector's numbers told apart by a legend (x y z for a 3-vector).
    const labels = count === 3 ? ["x", "y", "z"] : Array.from({ length: count }, (_, c) => String(c + 1));
    const series = [{ label: "t [s]" }];
    for (let c = 0; c < count; ++c) {
      series.push({ label: labels[c], stroke: COLORS[c % COLORS.length], width: 1.25, spanGaps: false,
                    points: { show: false } });
    }
    const chart = new uPlot(
      {
        title,
        width: Math.max(container.clientWidth - 16, 200),
        height: 130,
        legend: { show: count > 1 },
        cursor: { drag: { x: true, y: false } },
        scales: { x: { time: false }, y: log ? { distr: 3 } : { range: linearRange } },
        axes: [{ size: 30 }, { size: 60, values: log ? exponents : numbers }],
        series,
        hooks: { setSelect: [(u) => this.zoomTo(u)] },
      },
      data(meta),
      box,
    );
    box.hidden = !hasValues(data(meta));
    const line = document.createElement("div");
    line.className = "plot-cursor";
    chart.over.appendChild(line);
    this.charts.push(chart);
    this.cursors.push(line);
    this.sources.push(data);
    return chart;
  }

  // A live run's newer meta data: every chart redrawn with it.
  update(meta) {
    this.charts.forEach((chart, i) => {
      const data = this.sources[i](meta);
      chart.setData(data);
      chart.root.parentElement.hidden = !hasValues(data);
    });
    if (this.time !== undefined) this.setTime(this.time);
  }

  // A drag on a chart seeks the playback to where it started.
  zoomTo(chart) {
    if (chart.select.width > 0) this.onSeek(chart.posToVal(chart.select.left, "x"));
  }

  // Number of points of each chart of solver statistics shown (one per step).
  pointCounts() {
    return this.statistics.filter((chart) => !chart.root.parentElement.hidden)
      .map((chart) => chart.data[0].length);
  }

  // Each sensor chart's title and data ([times, column 1, ...]).
  sensorPlots() {
    return this.sensors.map((chart) => ({ title: chart.root.querySelector(".u-title")?.textContent,
                                          data: chart.data }));
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
