// A screenshot of the viewer on a run: node screenshot.mjs URL FRAME OUT.png
// [sensors] (URL: a `coulomb view` address or an exported file:// page;
// FRAME: the frame to show; sensors: the side panel scrolled to the sensor
// plots). Used by `make viewer-screenshots` for docs/.
import { chromium } from "playwright-core";
const [url, frame, out, panel] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.COULOMB_CHROMIUM || "/usr/bin/chromium", args: ["--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--no-sandbox"] });
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
page.on("pageerror", (e) => console.log("pageerror", e.message));
await page.goto(url);
await page.waitForFunction(() => window.coulombViewer?.ready, null, { timeout: 60000 });
await page.evaluate((f) => window.coulombViewer.setFrame(Number(f)), frame);
if (panel === "sensors") await page.evaluate(() => document.getElementById("sensors-title").scrollIntoView());
await page.waitForTimeout(500);
await page.screenshot({ path: out });
await browser.close();
