// flamegraph-view.js - open a ktap-flamegraph SVG in headless Chromium
// and check, as a person would see it, that it shows its frames and that
// hovering, clicking and searching work.
//
// usage: node flamegraph-view.js FILE.svg OUTDIR [SEARCH]
//
// Chromium (/usr/bin/chromium, or $CHROMIUM) is driven over
// --remote-debugging-pipe with the DevTools protocol (no network, no npm
// package). Screenshots go to OUTDIR/view-*.png. Each check prints
// "ok NAME" or "FAIL NAME: why"; the exit status is 1 if any failed.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const zlib = require("zlib");

const [svgFile, outDir, searchTerm = "vfs_read"] = process.argv.slice(2);
if (!svgFile || !outDir) {
	console.error("usage: node flamegraph-view.js FILE.svg OUTDIR [SEARCH]");
	process.exit(2);
}

let failures = 0;
function check(name, ok, why) {
	console.log(ok ? `ok ${name}` : `FAIL ${name}: ${why}`);
	if (!ok)
		failures++;
}

// ---- PNG: enough of it to read Chromium's screenshots ----

function paeth(a, b, c) {
	const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// -> { width, height, rgb(x, y) -> [r, g, b] }
function decodePng(buf) {
	let pos = 8, width, height, bpp, idat = [];
	while (pos < buf.length) {
		const len = buf.readUInt32BE(pos), type = buf.toString("ascii", pos + 4, pos + 8);
		const data = buf.subarray(pos + 8, pos + 8 + len);
		if (type === "IHDR") {
			width = data.readUInt32BE(0);
			height = data.readUInt32BE(4);
			if (data[8] !== 8 || (data[9] !== 2 && data[9] !== 6) || data[12] !== 0)
				throw new Error("unsupported PNG (depth/colour type/interlace)");
			bpp = data[9] === 6 ? 4 : 3;
		} else if (type === "IDAT") {
			idat.push(data);
		}
		pos += 12 + len;
	}
	const raw = zlib.inflateSync(Buffer.concat(idat)), stride = width * bpp;
	const px = Buffer.alloc(stride * height);
	for (let y = 0; y < height; y++) {
		const filter = raw[y * (stride + 1)], src = y * (stride + 1) + 1, dst = y * stride;
		for (let i = 0; i < stride; i++) {
			const a = i >= bpp ? px[dst + i - bpp] : 0, b = y ? px[dst + i - stride] : 0;
			const c = i >= bpp && y ? px[dst + i - stride - bpp] : 0;
			const pred = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter];
			px[dst + i] = (raw[src + i] + pred) & 255;
		}
	}
	return { width, height, rgb: (x, y) => { const o = y * stride + x * bpp; return [px[o], px[o + 1], px[o + 2]]; } };
}

// pixels per colour "r,g,b"
function histogram(img) {
	const h = new Map();
	for (let y = 0; y < img.height; y++)
		for (let x = 0; x < img.width; x++) {
			const k = img.rgb(x, y).join(",");
			h.set(k, (h.get(k) || 0) + 1);
		}
	return h;
}

// ---- the DevTools protocol over the pipe ----

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ktap-chromium-"));
const chromium = spawn(process.env.CHROMIUM || "/usr/bin/chromium", [
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--no-first-run",
	"--hide-scrollbars", `--user-data-dir=${profile}`, "--remote-debugging-pipe",
	"about:blank"], { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let chromiumErr = "";
chromium.stderr.on("data", (d) => { chromiumErr += d; });

let nextId = 1, inbuf = "";
const waiting = new Map(), listeners = [];
chromium.stdio[4].on("data", (d) => {
	inbuf += d;
	let nul;
	while ((nul = inbuf.indexOf("\0")) >= 0) {
		const msg = JSON.parse(inbuf.slice(0, nul));
		inbuf = inbuf.slice(nul + 1);
		if (msg.id && waiting.has(msg.id)) {
			const { resolve, reject } = waiting.get(msg.id);
			waiting.delete(msg.id);
			msg.error ? reject(new Error(JSON.stringify(msg.error))) : resolve(msg.result);
		} else if (msg.method) {
			listeners.slice().forEach((l) => l(msg));
		}
	}
});

function send(method, params = {}, sessionId) {
	const id = nextId++;
	chromium.stdio[3].write(JSON.stringify({ id, method, params, sessionId }) + "\0");
	return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

function event(method, timeoutMs = 20000) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`no ${method} in ${timeoutMs} ms`)), timeoutMs);
		const l = (msg) => {
			if (msg.method !== method)
				return;
			listeners.splice(listeners.indexOf(l), 1);
			clearTimeout(timer);
			resolve(msg.params);
		};
		listeners.push(l);
	});
}

// ---- the checks ----

// what a frame's box looks like in the file: name -> "r,g,b" (wide frames)
function wideFrameColours(svgText, minPx) {
	const colours = new Map();
	const re = /<title>([^<]*) \([^<]*<\/title><rect [^>]*width="([\d.]+)"[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"/g;
	let m;
	while ((m = re.exec(svgText)))
		if (+m[2] >= minPx)
			colours.set(m[1], `${m[3]},${m[4]},${m[5]}`);
	return colours;
}

async function main() {
	const svgText = fs.readFileSync(svgFile, "utf8");
	const width = +/<svg [^>]*width="(\d+)"/.exec(svgText)[1];
	const height = +/<svg [^>]*height="(\d+)"/.exec(svgText)[1];
	const { targetInfos } = await send("Target.getTargets");
	const page = targetInfos.find((t) => t.type === "page");
	const { sessionId: s } = await send("Target.attachToTarget", { targetId: page.targetId, flatten: true });
	const ev = (expr) => send("Runtime.evaluate", { expression: expr, returnByValue: true }, s)
		.then((r) => r.result.value);
	let shots = 0;
	const shot = async (name) => {
		const { data } = await send("Page.captureScreenshot", { format: "png" }, s);
		const buf = Buffer.from(data, "base64");
		fs.writeFileSync(path.join(outDir, `view-${++shots}-${name}.png`), buf);
		return decodePng(buf);
	};

	await send("Page.enable", {}, s);
	await send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false }, s);
	const loaded = event("Page.loadEventFired");
	await send("Page.navigate", { url: "file://" + path.resolve(svgFile) }, s);
	await loaded;

	// 1. the frames are drawn: every frame at least 4 px wide shows its
	// colour over at least 20 pixels
	let img = await shot("loaded");
	let hist = histogram(img);
	const wide = wideFrameColours(svgText, 4);
	const missing = [...wide].filter(([, c]) => (hist.get(c) || 0) < 20).map(([n]) => n);
	const shown = [...new Set(wide.values())].filter((c) => hist.get(c) >= 20).length;
	check("frames drawn", wide.size >= 5 && missing.length === 0,
		`${wide.size} wide frames in the file; not seen: ${missing.slice(0, 5).join(", ")}`);
	console.log(`  ${shown} distinct frame colours on screen, ${hist.size} colours in all`);

	// the widest frame below the root that is not the whole graph
	const target = await ev(`(function () {
		var best = null, gs = document.querySelectorAll("g.f");
		for (var i = 0; i < gs.length; i++) {
			var w = +gs[i].getAttribute("data-w"), d = +gs[i].getAttribute("data-d");
			if (d >= 2 && (!best || w > best.w)) best = { i: i, w: w };
		}
		var r = gs[best.i].querySelector("rect").getBoundingClientRect();
		return { i: best.i, x: r.x + Math.min(r.width / 2, 30), y: r.y + r.height / 2,
			title: gs[best.i].querySelector("title").textContent,
			fill: gs[best.i].querySelector("rect").getAttribute("fill"),
			width: r.width };
	})()`);

	// 2. hover: the details line names the frame under the pointer
	await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: target.x, y: target.y }, s);
	const details = await ev(`document.getElementById("details").textContent`);
	check("hover names the frame", details === target.title, `details "${details}", want "${target.title}"`);
	await shot("hover");

	// 3. click: the frame fills the width, frames outside it go away
	for (const type of ["mousePressed", "mouseReleased"])
		await send("Input.dispatchMouseEvent", { type, x: target.x, y: target.y, button: "left", clickCount: 1 }, s);
	const zoomed = await ev(`(function () {
		var g = document.querySelectorAll("g.f")[${target.i}];
		return { width: g.querySelector("rect").getBoundingClientRect().width,
			off: document.querySelectorAll("g.f.off").length,
			reset: !document.getElementById("reset").classList.contains("hidden") };
	})()`);
	check("click zooms", zoomed.width > width - 30 && zoomed.reset,
		`frame ${target.width.toFixed(1)} -> ${zoomed.width.toFixed(1)} px wide, reset shown ${zoomed.reset}`);
	img = await shot("zoomed");
	const [r, g, b] = target.fill.match(/\d+/g).map(Number);
	let row = 0;
	for (let x = 0; x < img.width; x++) {
		const p = img.rgb(x, Math.round(target.y));
		if (p[0] === r && p[1] === g && p[2] === b)
			row++;
	}
	check("zoomed frame spans the screenshot", row > img.width / 2, `${row} of ${img.width} pixels of its row in its colour`);

	// 4. search: '/' asks for a name, matching frames turn magenta
	const dialog = event("Page.javascriptDialogOpening");
	await send("Input.dispatchKeyEvent", { type: "keyDown", key: "Escape", code: "Escape", windowsVirtualKeyCode: 27 }, s);
	// the key's event returns only once the prompt it opened is answered
	const key = send("Input.dispatchKeyEvent", { type: "keyDown", key: "/", code: "Slash", text: "/", windowsVirtualKeyCode: 191 }, s);
	await dialog;
	await send("Page.handleJavaScriptDialog", { accept: true, promptText: searchTerm }, s);
	await key;
	const result = await ev(`[document.querySelectorAll("g.f.match").length, document.getElementById("matched").textContent]`);
	img = await shot("search");
	hist = histogram(img);
	const magenta = hist.get("225,0,225") || 0;
	check("search marks frames", result[0] > 0 && magenta > 50 && /% of /.test(result[1]),
		`${result[0]} frames matched "${searchTerm}", ${magenta} magenta pixels, "${result[1]}"`);
	console.log(`  ${result[1]}`);
}

const watchdog = setTimeout(() => { check("browser", false, "timed out after 90 s"); finish(); }, 90000);

let exited = false;
const gone = new Promise((resolve) => chromium.on("exit", (code) => {
	exited = true;
	if (waiting.size)
		check("browser", false, `chromium exited (${code}): ${chromiumErr.slice(-500)}`);
	resolve();
}));

// close the browser, wait for it to go, remove its profile
async function finish() {
	clearTimeout(watchdog);
	if (!exited) {
		send("Browser.close").catch(() => {});
		const kill = setTimeout(() => chromium.kill("SIGKILL"), 5000);
		await gone;
		clearTimeout(kill);
	}
	fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
	process.exit(failures ? 1 : 0);
}
main().catch((e) => check("browser", false, e.message)).then(finish);
