// The viewer in a real browser (headless Chromium through playwright-core,
// WebGL by SwiftShader): a recorded run served by `coulomb view`, the same
// run exported as one HTML file opened from file://, and a live run of
// `coulomb run --view`. Also the server's refusals (path traversal).
//
//   node viewer/test/viewer_test.mjs COULOMB_BINARY SOURCE_DIR
// Exit 77 (ctest: skipped) when no Chromium is installed.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const coulomb = process.argv[2];
const browserPath = process.env.COULOMB_CHROMIUM || "/usr/bin/chromium";
if (!existsSync(browserPath)) {
  console.log(`SKIP: no browser at ${browserPath} (apt-get install chromium, or set COULOMB_CHROMIUM)`);
  process.exit(77);
}

let failures = 0;
function check(condition, what) {
  console.log(`${condition ? "ok  " : "FAIL"} ${what}`);
  if (!condition) failures += 1;
}

const work = mkdtempSync(join(tmpdir(), "coulomb-viewer-test-"));
const children = [];
function cleanUp() {
  for (const child of children) child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
}

function run(args) {
  const result = spawnSync(coulomb, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`coulomb ${args.join(" ")}: ${result.stderr}`);
  return result.stdout;
}

// Starts a serving coulomb command and resolves with the URL it prints.
function serve(args) {
  const child = spawn(coulomb, args, { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout.on("data", (data) => {
      output += data;
      const url = output.match(/http:\/\/[^\s]+\//);
      if (url) resolve(url[0]);
    });
    child.on("exit", (code) => reject(new Error(`coulomb ${args[0]} exited with ${code}`)));
  });
}

// The status of a raw GET of `path`, sent as is (no dot-segment cleanup).
function rawStatus(url, path) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`));
    let response = "";
    socket.on("data", (data) => (response += data));
    socket.on("end", () => resolve(Number(response.split(" ")[1])));
    socket.on("error", reject);
  });
}

async function checkServerRefusals(url) {
  check((await rawStatus(url, "/run/stats.json")) === 200, "server: a file of the run is served");
  check((await rawStatus(url, "/run/../../../etc/passwd")) === 403, "server: /run/../.. refused");
  check((await rawStatus(url, "/run/..%2f..%2fetc%2fpasswd")) === 403, "server: encoded .. refused");
  check((await rawStatus(url, "/run/%2fetc%2fpasswd")) === 403, "server: absolute path refused");
  check((await rawStatus(url, "/../etc/passwd")) === 404, "server: paths outside its routes: 404");
  check((await rawStatus(url, "/run/missing.h5")) === 404, "server: missing run file: 404");
}

// Page-side pixel tools: capture(name) keeps the canvas' pixels, diff(a, b)
// counts the pixels that differ.
async function installPixelTools(page) {
  await page.evaluate(() => {
    const captures = {};
    window.__capture = (name) => {
      const view = window.coulombViewer.view;
      view.render();
      const canvas = view.renderer.domElement;
      const copy = document.createElement("canvas");
      copy.width = canvas.width;
      copy.height = canvas.height;
      const context = copy.getContext("2d");
      context.drawImage(canvas, 0, 0);
      captures[name] = context.getImageData(0, 0, copy.width, copy.height).data;
    };
    window.__diff = (a, b) => {
      let count = 0;
      for (let i = 0; i < captures[a].length; i += 4) {
        if (Math.abs(captures[a][i] - captures[b][i]) + Math.abs(captures[a][i + 1] - captures[b][i + 1]) +
            Math.abs(captures[a][i + 2] - captures[b][i + 2]) > 24) ++count;
      }
      return count;
    };
  });
}

async function openViewer(browser, url, label) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 720 } });
  const errors = [];
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(url);
  await page.waitForFunction(() => window.coulombViewer?.ready, null, { timeout: 30000 });
  await installPixelTools(page);
  page.errors = errors;
  page.label = label;
  return page;
}

// The pixels geometry `index` covers: the picture with and without it.
async function pixelsOf(page, index) {
  await page.evaluate(() => window.__capture("shown"));
  return page.evaluate((g) => {
    const view = window.coulombViewer.view;
    view.objects[g].visible = false;
    window.__capture("hidden");
    view.objects[g].visible = true;
    return window.__diff("shown", "hidden");
  }, index);
}

// What every viewer page must show of the recorded run (`steps` steps).
async function checkPlayback(page, steps) {
  const at = (what) => `${page.label}: ${what}`;
  const viewer = (f, argument) => page.evaluate(f, argument);
  check((await viewer(() => window.coulombViewer.frameCount())) === steps + 1, at("one frame per step and the start"));
  const points = await viewer(() => window.coulombViewer.plotPointCounts());
  check(points.length >= 4 && points.every((n) => n === steps), at(`plots of ${steps} points each (${points})`));

  // The bodies are drawn: hiding one changes the pixels where it is.
  await viewer(() => window.coulombViewer.setFrame(0));
  const body = await viewer(() => window.coulombViewer.meta.geometries.findIndex((g) => g.body !== "world"));
  const hiddenPixels = await pixelsOf(page, body);
  check(hiddenPixels > 20, at(`a body covers ${hiddenPixels} pixels`));

  // Moving the time slider moves the bodies.
  await page.locator("#time-slider").fill(String(steps));
  await viewer(() => window.__capture("end"));
  const moved = await viewer(() => window.__diff("shown", "end"));
  check(moved > 100, at(`the slider changes the picture (${moved} pixels)`));
  const frame = await viewer(() => window.coulombViewer.player.frame);
  check(frame === steps, at("the slider sets the frame"));

  // Force arrows (visible through transparent bodies) can be switched off.
  await page.locator("#transparent").check();
  await viewer(() => window.__capture("forces"));
  await page.locator("#show-forces").uncheck();
  await viewer(() => window.__capture("no-forces"));
  const arrows = await viewer(() => window.__diff("forces", "no-forces"));
  check(arrows > 10, at(`force arrows toggle (${arrows} pixels)`));
  await page.locator("#show-forces").check();

  // Playing advances the frames.
  await viewer(() => window.coulombViewer.setFrame(0));
  await page.locator("#play").click();
  await page.waitForTimeout(1500);
  const playing = await viewer(() => ({ frame: window.coulombViewer.player.frame, fps: window.coulombViewer.player.fps }));
  check(playing.frame > 10, at(`playback advances (frame ${playing.frame} after 1.5 s, ${playing.fps.toFixed(0)} fps)`));
  check(page.errors.length === 0, at(`no console errors ${page.errors.length ? page.errors.join(" | ") : ""}`));
}

// A run paced to the wall clock (5 s) so that the page opens while it is
// computed, follows it, and ends on its last frame.
async function checkLive(browser) {
  const url = await serve(["run", "clutter", "--set", "bodies=8", "--duration", "5", "--realtime", "--view", "--port", "0"]);
  const page = await openViewer(browser, url, "live");
  const first = await page.evaluate(() => ({ live: window.coulombViewer.meta.live, frames: window.coulombViewer.frameCount() }));
  check(first.live, `live: the page opens on a run being computed (${first.frames} frames so far)`);
  await page.waitForFunction(() => !window.coulombViewer.meta.live, null, { timeout: 120000 });
  const frames = await page.evaluate(() => window.coulombViewer.frameCount());
  check(frames === 501 && frames > first.frames, `live: the page follows the run to its end (${frames} frames)`);
  const shown = await page.evaluate(() => window.coulombViewer.player.frame);
  check(shown === frames - 1, `live: the page shows the newest frame (${shown})`);
  const points = await page.evaluate(() => window.coulombViewer.plotPointCounts());
  check(points.length >= 4 && points.every((n) => n === frames - 1),
        `live: the plots follow the run to its end (${points})`);
  check(page.errors.length === 0, `live: no console errors ${page.errors.join(" | ")}`);
}

// Each geometry of the run of `args` is drawn as `expected` says (its shape
// names): hiding any one changes the picture.
async function checkDrawnShapes(browser, name, args, expected) {
  const runDir = join(work, name);
  run(["run", ...args, "--out", runDir]);
  const page = join(work, `${name}.html`);
  run(["view", runDir, "--export", page]);
  const viewer = await openViewer(browser, pathToFileURL(page).href, name);
  const shapes = await viewer.evaluate(() => window.coulombViewer.meta.geometries.map((g) => g.shape));
  check(shapes.join(" ") === expected.join(" "), `${name}: shapes ${shapes}`);
  for (let g = 0; g < shapes.length; ++g) {
    const pixels = await pixelsOf(viewer, g);
    check(pixels > 200, `${name}: geometry ${g} (${shapes[g]}) covers ${pixels} pixels`);
  }
  check(viewer.errors.length === 0, `${name}: no console errors ${viewer.errors.join(" | ")}`);
}

// SDF shapes (the threaded bolt, world geometry, and the nut) are drawn from
// their display surfaces; an ellipsoid as a sphere scaled by its semi-axes.
async function checkShapes(browser) {
  await checkDrawnShapes(browser, "bolt_nut", ["bolt_nut", "--duration", "0.02"], ["sdf", "sdf"]);
  const egg = join(work, "egg.xml");
  writeFileSync(egg, `<mujoco><worldbody><body name="egg" pos="0 0 1"><freejoint/>
    <geom type="ellipsoid" size="0.1 0.05 0.2" mass="1"/></body></worldbody></mujoco>`);
  await checkDrawnShapes(browser, "egg", [egg, "--duration", "0.02"], ["ellipsoid"]);
}

// A geometry of the world is drawn at its pose from the model at every
// frame, though the chunks carry the moving geometries' poses only: a ledge
// shifted and turned 30° about z beside a falling ball.
async function checkFixedPoses(browser) {
  const model = join(work, "ledge.xml");
  writeFileSync(model, `<mujoco><worldbody>
    <geom name="ledge" type="box" size="0.3 0.1 0.05" pos="0.6 -0.2 0.1" euler="0 0 30"/>
    <body name="ball" pos="0 0 0.5"><freejoint/><geom type="sphere" size="0.1" mass="1"/></body>
    </worldbody></mujoco>`);
  const runDir = join(work, "ledge");
  run(["run", model, "--duration", "0.3", "--out", runDir]);
  const file = join(work, "ledge.html");
  run(["view", runDir, "--export", file]);
  const chunk = readFileSync(file, "utf8").match(/id="coulomb-chunk-0">([^<]*)</)[1];
  const header = new Uint32Array(new Uint8Array(Buffer.from(chunk, "base64")).buffer, 0, 4);
  check(header[2] === 1, `fixed poses: a chunk carries the poses of 1 of 2 geometries (${header[2]})`);
  const page = await openViewer(browser, pathToFileURL(file).href, "fixed poses");
  const bodies = await page.evaluate(() => window.coulombViewer.meta.geometries.map((g) => g.body));
  const [ledge, ball] = [bodies.indexOf("world"), bodies.findIndex((b) => b !== "world")];
  check(ledge >= 0 && ball >= 0 && bodies.length === 2, `fixed poses: the ledge and the ball (${bodies})`);
  const matrixAt = (frame, g) => page.evaluate(([f, i]) => {
    window.coulombViewer.setFrame(f);
    return Array.from(window.coulombViewer.view.objects[i].matrix.elements);
  }, [frame, g]);
  const frames = await page.evaluate(() => window.coulombViewer.frameCount());
  const c = Math.cos(Math.PI / 6), s = Math.sin(Math.PI / 6);
  const expected = [c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0.6, -0.2, 0.1, 1]; // column-major
  for (const frame of [0, frames - 1]) {
    const m = await matrixAt(frame, ledge);
    const error = Math.max(...m.map((v, k) => Math.abs(v - expected[k])));
    check(error < 1e-6, `fixed poses: the ledge at frame ${frame} is where the model puts it (${error.toExponential(1)})`);
  }
  const [start, end] = [await matrixAt(0, ball), await matrixAt(frames - 1, ball)];
  const fall = start[14] - end[14], expectedFall = 0.5 * 9.81 * 0.3 * 0.3;
  check(Math.abs(fall - expectedFall) < 0.05, `fixed poses: the ball falls ${fall.toFixed(3)} m (g t²/2 = ${expectedFall.toFixed(3)})`);
  check(page.errors.length === 0, `fixed poses: no console errors ${page.errors.join(" | ")}`);
}

// The sensor charts of a page: per chart its title and [times, columns...].
function sensorPlots(page) {
  return page.evaluate(() => window.coulombViewer.sensorPlots());
}

// The gripper's sensors (two touch sensors, one force sensor): a chart each
// with a point per frame and a series per number, the same in a page of the
// recorded run (read from trajectory.h5) as in the page that followed the
// same run live (taken from the simulation as it ran), and the touch
// sensors read the fingers' grip: zero while open, positive once closed.
async function checkSensors(browser) {
  const model = join(process.argv[3], "scenes", "parallel_gripper.xml");
  const args = ["run", model, "--duration", "0.5"];
  const runDir = join(work, "gripper");
  run([...args, "--out", runDir]);
  const recorded = await openViewer(browser, await serve(["view", runDir, "--port", "0"]), "sensors");
  const live = await openViewer(browser, await serve([...args, "--realtime", "--view", "--port", "0"]),
                                "sensors live");
  await live.waitForFunction(() => !window.coulombViewer.meta.live, null, { timeout: 120000 });
  const frames = await recorded.evaluate(() => window.coulombViewer.frameCount());
  const plots = await sensorPlots(recorded), livePlots = await sensorPlots(live);
  const titles = plots.map((p) => p.title).join(", ");
  check(titles === "gripper · left_touch, gripper · right_touch, gripper · wrist_force (3)",
        `sensors: one chart per sensor (${titles})`);
  check(plots.every((p, k) => p.data.length === (k < 2 ? 2 : 4) && p.data.every((s) => s.length === frames)),
        `sensors: a series per number read, a point per frame (${frames})`);
  check(JSON.stringify(plots) === JSON.stringify(livePlots),
        "sensors: the recorded run's charts equal the live run's");
  const meta = await recorded.evaluate(() => window.coulombViewer.meta.sensors[0]);
  const force = [0, 1, 2].map((c) => Array.from({ length: frames }, (_, f) => meta.readings[5 * f + 2 + c]));
  check(JSON.stringify(plots[2].data.slice(1)) === JSON.stringify(force),
        "sensors: the force chart draws columns 3–5 of the readings");
  const touch = plots[0].data[1];
  check(touch.every((v) => v >= 0) && touch[0] === 0 && Math.max(...touch) > 1,
        `sensors: touch is 0 at the start, then the grip (max ${Math.max(...touch).toFixed(2)} N)`);
  const shown = await recorded.evaluate(() => !document.getElementById("sensors-title").hidden);
  check(shown, "sensors: the panel has its Sensors section");
  for (const page of [recorded, live]) check(page.errors.length === 0, `${page.label}: no console errors`);
}

async function main() {
  const runDir = join(work, "run");
  run(["run", "clutter", "--set", "bodies=8", "--duration", "1", "--out", runDir]);
  const steps = JSON.parse(readFileSync(join(runDir, "stats.json"), "utf8")).steps;
  const url = await serve(["view", runDir, "--port", "0"]);
  await checkServerRefusals(url);

  const browser = await chromium.launch({
    executablePath: browserPath,
    args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
  });
  try {
    await checkPlayback(await openViewer(browser, url, "served"), steps);
    const replay = join(work, "replay.html");
    run(["view", runDir, "--export", replay]);
    await checkPlayback(await openViewer(browser, pathToFileURL(replay).href, "exported"), steps);
    await checkLive(browser);
    await checkShapes(browser);
    await checkFixedPoses(browser);
    await checkSensors(browser);
  } finally {
    await browser.close();
  }
}

try {
  await main();
} catch (error) {
  console.log(`FAIL ${error.stack}`);
  failures += 1;
} finally {
  cleanUp();
}
console.log(failures === 0 ? "viewer_test: all checks passed" : `viewer_test: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
