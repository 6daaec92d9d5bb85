// How fast the viewer loads and plays a run (a benchmark, not a test):
//   node viewer/test/load_bench.mjs COULOMB_BINARY RUN_DIR [--served-only]
// Serves RUN_DIR with `coulomb view`, opens it in headless Chromium, and
// prints the time until the first frame is drawn, the frame rate while
// playing at 1× and 4×, the JavaScript time per frame, and the same for the
// exported HTML file. WebGL rasterizes on the CPU (SwiftShader) here: the
// frame rate is SwiftShader's; a browser with a GPU is bound by the
// JavaScript time per frame instead.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const [coulomb, runDir, option] = process.argv.slice(2);
const servedOnly = option === "--served-only"; // runs too large to inline
const browserPath = process.env.COULOMB_CHROMIUM || "/usr/bin/chromium";

function serve() {
  const child = spawn(coulomb, ["view", runDir, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve) => {
    let output = "";
    child.stdout.on("data", (data) => {
      output += data;
      const url = output.match(/http:\/\/[^\s]+\//);
      if (url) resolve({ url: url[0], child });
    });
  });
}

async function measure(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const start = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.coulombViewer?.ready, null, { timeout: 300000 });
  const load = (Date.now() - start) / 1000;
  const info = await page.evaluate(() => ({
    frames: window.coulombViewer.frameCount(),
    geometries: window.coulombViewer.meta.geometries.length,
  }));
  // JavaScript time per frame (poses, contacts, draw calls), frames loaded.
  const perFrame = await page.evaluate(() => {
    const player = window.coulombViewer.player;
    player.seek(0);
    const start = performance.now();
    for (let frame = 0; frame < 100; ++frame) player.seek(frame);
    return (performance.now() - start) / 100;
  });
  const rates = [];
  for (const speed of [1, 4]) {
    await page.selectOption("#speed", String(speed));
    await page.evaluate(() => window.coulombViewer.setFrame(0));
    await page.locator("#play").click();
    await page.waitForTimeout(5000);
    rates.push(await page.evaluate(() => window.coulombViewer.player.fps));
    await page.locator("#play").click();
  }
  await page.close();
  return { load, perFrame, rates, ...info };
}

const work = mkdtempSync(join(tmpdir(), "coulomb-viewer-bench-"));
const { url, child } = await serve();
const browser = await chromium.launch({
  executablePath: browserPath,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
});
try {
  const served = await measure(browser, url);
  console.log(`run: ${runDir}: ${served.frames} frames, ${served.geometries} geometries`);
  console.log("| page | size | load to first frame [s] | JavaScript per frame [ms] | fps at 1× | fps at 4× |");
  console.log("|---|---|---|---|---|---|");
  const row = (name, size, r) =>
    console.log(`| ${name} | ${size} | ${r.load.toFixed(2)} | ${r.perFrame.toFixed(2)} | ` +
                `${r.rates[0].toFixed(1)} | ${r.rates[1].toFixed(1)} |`);
  row("served (coulomb view)", `${(statSync(join(runDir, "trajectory.h5")).size / 1e6).toFixed(0)} MB file, chunks on demand`, served);
  if (!servedOnly) {
    const replay = join(work, "replay.html");
    const exportStart = Date.now();
    spawnSync(coulomb, ["view", runDir, "--export", replay]);
    const exportSeconds = (Date.now() - exportStart) / 1000;
    const exported = await measure(browser, pathToFileURL(replay).href);
    row(`exported (${exportSeconds.toFixed(1)} s to write)`, `${(statSync(replay).size / 1e6).toFixed(1)} MB`, exported);
  }
} finally {
  await browser.close();
  child.kill();
  rmSync(work, { recursive: true, force: true });
}
