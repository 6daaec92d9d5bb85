// Coulomb's run viewer: plays a recorded (or live) run of `coulomb run`,
// with contact points, force arrows and the solver's statistics.
// `window.coulombViewer` exposes the state for scripts and tests.
import { ChunkCache, InlineSource, ServerSource } from "./data.js";
import { Plots } from "./plots.js";
import { SceneView } from "./scene.js";

const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 4];

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  Object.assign(node, attributes);
  if (text) node.textContent = text;
  return node;
}

function checkbox(id, text, checked) {
  const label = element("label");
  const box = element("input", { type: "checkbox", id, checked });
  label.append(box, ` ${text}`);
  return label;
}

function buildPage() {
  const app = document.getElementById("app");
  const toolbar = element("div", { id: "toolbar" });
  toolbar.append(
    element("button", { id: "step-back", title: "previous frame (←)" }, "|◀"),
    element("button", { id: "play", title: "play / pause (space)" }, "▶"),
    element("button", { id: "step-forward", title: "next frame (→)" }, "▶|"),
    element("input", { type: "range", id: "time-slider", min: 0, max: 0, value: 0 }),
    element("span", { id: "time-label" }),
  );
  const speed = element("select", { id: "speed", title: "playback speed" });
  for (const s of SPEEDS) speed.append(element("option", { value: s, selected: s === 1 }, `${s}×`));
  toolbar.append(
    speed,
    checkbox("show-contacts", "contacts", true),
    checkbox("show-forces", "forces", true),
    checkbox("show-frames", "frames", false),
    checkbox("transparent", "transparent", false),
  );
  const view = element("div", { id: "view" });
  view.append(element("div", { id: "legend" }), element("div", { id: "status" }));
  const panel = element("div", { id: "panel" });
  panel.append(element("h2", {}, "Run"), element("div", { id: "summary" }),
               element("h2", {}, "Solver statistics"), element("div", { id: "plots" }),
               element("h2", { id: "sensors-title", hidden: true }, "Sensors"),
               element("div", { id: "sensor-plots" }));
  app.append(toolbar, view, panel);
}

function summaryText(meta) {
  const s = meta.stats;
  const parts = [`${meta.name}: ${meta.geometries.length} geometries, ${meta.frames} frames`];
  if (s.solver) parts.push(`${s.contact_model} contact, ${s.solver}, δt = ${s.time_step} s`);
  if (s.steps !== undefined) {
    parts.push(`${s.steps} steps, ${Number(s.iterations_mean).toFixed(2)} iterations/step, ` +
               `max e_m ${Number(s.momentum_error_max).toExponential(1)}, ` +
               `max penetration ${Number(s.penetration_max).toExponential(2)} m`);
  }
  if (s.failure) parts.push(`failure: ${s.failure}`);
  return parts.join("\n");
}

class Player {
  constructor(meta, cache, view, plots) {
    Object.assign(this, { meta, cache, view, plots });
    this.frame = 0;
    this.playing = false;
    this.speed = 1;
    this.clock = 0; // playback time [s] while playing
    this.fps = 0;
    this.slider = document.getElementById("time-slider");
    this.label = document.getElementById("time-label");
    this.slider.max = meta.frames - 1;
    cache.onLoad = () => this.show();
  }
  time(frame) {
    return this.meta.time[frame] ?? 0;
  }
  seek(frame) {
    this.frame = Math.max(0, Math.min(this.meta.frames - 1, Math.round(frame)));
    this.following = this.frame === this.meta.frames - 1; // live runs: stay on the newest
    this.clock = this.time(this.frame);
    this.show();
  }
  seekTime(t) {
    const times = this.meta.time;
    let lo = 0, hi = times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid] < t) lo = mid + 1; else hi = mid;
    }
    this.seek(lo);
  }
  show() {
    const chunk = this.cache.frame(this.frame);
    this.slider.value = this.frame;
    const t = this.time(this.frame), end = this.time(this.meta.frames - 1);
    this.label.textContent = `t = ${t.toFixed(3)} s / ${end.toFixed(3)} s`;
    this.plots.setTime(t);
    if (chunk) {
      this.view.show(chunk, this.frame);
      this.shown = this.frame;
    }
    document.getElementById("status").textContent = chunk ? `${this.view.contactCount} contacts` : "loading…";
  }
  toggle() {
    this.playing = !this.playing;
    document.getElementById("play").textContent = this.playing ? "||" : "▶";
    if (this.playing) {
      if (this.frame >= this.meta.frames - 1) this.seek(0);
      this.last = performance.now();
      this.frames = 0;
      this.fpsStart = this.last;
      requestAnimationFrame((now) => this.tick(now));
    }
  }
  tick(now) {
    if (!this.playing) return;
    this.clock += ((now - this.last) / 1000) * this.speed;
    this.last = now;
    const times = this.meta.time;
    let frame = this.frame;
    while (frame + 1 < this.meta.frames && times[frame + 1] <= this.clock) ++frame;
    if (this.cache.frame(frame) === null) this.clock = this.time(this.frame); // wait for data
    else if (frame !== this.frame) this.seek(frame), this.clock = Math.max(this.clock, this.time(frame));
    if (++this.frames >= 5) this.fps = (1000 * this.frames) / (now - this.fpsStart);
    if (this.frame >= this.meta.frames - 1 && !this.meta.live) return this.toggle();
    requestAnimationFrame((t) => this.tick(t));
  }
}

function wireControls(player, view) {
  const $ = (id) => document.getElementById(id);
  $("play").onclick = () => player.toggle();
  $("step-back").onclick = () => player.seek(player.frame - 1);
  $("step-forward").onclick = () => player.seek(player.frame + 1);
  $("time-slider").oninput = (event) => player.seek(Number(event.target.value));
  $("speed").onchange = (event) => (player.speed = Number(event.target.value));
  const visibility = () =>
    view.setVisible({
      contacts: $("show-contacts").checked,
      forces: $("show-forces").checked,
      frames: $("show-frames").checked,
      transparent: $("transparent").checked,
    });
  for (const id of ["show-contacts", "show-forces", "show-frames", "transparent"]) $(id).onchange = visibility;
  visibility();
  window.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT" && event.target.type === "range") return;
    if (event.key === " ") player.toggle(), event.preventDefault();
    if (event.key === "ArrowLeft") player.seek(player.frame - 1);
    if (event.key === "ArrowRight") player.seek(player.frame + 1);
  });
}

// Arrows 0.1 of the scene's size long for a typical force (the 75th
// percentile of the first chunk's); − and + rescale; the legend says what a
// length means.
function scaleForces(view, chunk, meta, onChange) {
  const forces = [];
  for (let i = 0; i < chunk.contacts.length; i += 10) {
    const [x, y, z] = chunk.contacts.subarray(i + 6, i + 9);
    forces.push(Math.hypot(x, y, z) / meta.time_step);
  }
  forces.sort((a, b) => a - b);
  const typical = forces.length > 0 ? forces[Math.floor(0.75 * (forces.length - 1))] : 0;
  const length = 0.1 * meta.scene_size;
  view.forceScale = typical > 0 ? length / typical : 0.01;
  const legend = document.getElementById("legend");
  const text = element("span", { id: "force-legend" });
  const update = () => {
    text.textContent = `force arrows: ${length.toPrecision(2)} m = ${(length / view.forceScale).toPrecision(3)} N `;
  };
  const rescale = (factor) => () => {
    view.forceScale *= factor;
    update();
    onChange();
  };
  legend.append(text, element("button", { id: "forces-shorter", onclick: rescale(0.5) }, "−"),
                element("button", { id: "forces-longer", onclick: rescale(2) }, "+"));
  update();
}

// Live runs: poll the meta data while the run is being computed.
function followLive(source, player, cache) {
  const poll = async () => {
    const meta = await source.meta();
    const atEnd = player.following;
    Object.assign(player.meta, { frames: meta.frames, time: meta.time, live: meta.live, stats: meta.stats,
                                 sensors: meta.sensors });
    player.plots.update(player.meta);
    player.slider.max = meta.frames - 1;
    if (atEnd) player.seek(meta.frames - 1);
    if (meta.live) setTimeout(poll, 500);
    else document.getElementById("summary").textContent = summaryText(player.meta);
  };
  setTimeout(poll, 500);
}

async function start() {
  buildPage();
  const source = document.getElementById("coulomb-meta") ? new InlineSource(document) : new ServerSource();
  const meta = await source.meta();
  document.title = `Coulomb — ${meta.name}`;
  document.getElementById("summary").textContent = summaryText(meta);
  const cache = new ChunkCache(source, meta);
  const view = new SceneView(document.getElementById("view"), meta);
  const plots = new Plots(document.getElementById("plots"), document.getElementById("sensor-plots"), meta);
  document.getElementById("sensors-title").hidden = plots.sensors.length === 0;
  const player = new Player(meta, cache, view, plots);
  plots.onSeek = (t) => player.seekTime(t);
  wireControls(player, view);
  if (meta.frames > 0) scaleForces(view, await cache.load(0), meta, () => player.show());
  player.seek(meta.live ? meta.frames - 1 : 0);
  if (meta.live) followLive(source, player, cache);
  new ResizeObserver(() => plots.resize(document.getElementById("panel").clientWidth)).observe(
    document.getElementById("panel"));
  window.coulombViewer = {
    meta, player, view, plots,
    frameCount: () => meta.frames,
    plotPointCounts: () => plots.pointCounts(),
    sensorPlots: () => plots.sensorPlots(),
    setFrame: (frame) => player.seek(frame),
    ready: true,
  };
}

start().catch((error) => {
  document.body.insertAdjacentHTML("afterbegin", `<pre id="error">viewer: ${error.message}</pre>`);
  console.error(error);
});
