// viewer.js - what makes ktap-flamegraph's SVG interactive (embedded in
// each file; plain ES5, no network). The frames are <g class="f"> with
// data-d (depth), data-x (samples to their left at that depth) and data-w
// (their samples); their <title> is "NAME (COUNT UNIT, P%)".
//   hover: the frame's title in the details line (and the browser's tip)
//   click: zoom: the frame fills the width, its callees scale with it,
//          its callers stay as pale full-width bars; "Reset zoom" undoes
//   Search (or Ctrl-F, /): frames whose name contains the text turn
//          magenta; the share of samples under them is shown
//   Escape: reset zoom and search
(function () {
	"use strict";
	var svg = document.documentElement;
	var width = +svg.getAttribute("width");
	var pad = +svg.getAttribute("data-pad");
	var charw = +svg.getAttribute("data-charw");
	var total = +svg.getAttribute("data-total");
	var unit = svg.getAttribute("data-unit");
	var details = document.getElementById("details");
	var matched = document.getElementById("matched");
	var reset = document.getElementById("reset");
	var frames = [];
	var nodes = document.querySelectorAll("g.f");

	for (var i = 0; i < nodes.length; i++) {
		var g = nodes[i], t = g.querySelector("title").textContent;
		frames.push({ g: g, rect: g.querySelector("rect"), text: g.querySelector("text"),
			name: t.slice(0, t.lastIndexOf(" (")), title: t,
			d: +g.getAttribute("data-d"), x: +g.getAttribute("data-x"),
			w: +g.getAttribute("data-w") });
		g.frame = frames[i];
	}

	function label(f, w) {
		var fit = Math.floor((w - 6) / charw);
		if (fit < 3)
			return "";
		return f.name.length <= fit ? f.name : f.name.slice(0, fit - 2) + "..";
	}

	function place(f, x, w) {
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		f.text.setAttribute("x", (x + 3).toFixed(2));
		f.text.textContent = label(f, w);
	}

	// z fills the width; frames outside its subtree and its callers hide
	function zoom(z) {
		var scale = (width - 2 * pad) / z.w;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i], cls = f.g.classList;
			var inside = f.d >= z.d && f.x >= z.x && f.x + f.w <= z.x + z.w;
			var caller = f.d < z.d && f.x <= z.x && f.x + f.w >= z.x + z.w;
			cls.toggle("off", !inside && !caller);
			cls.toggle("caller", caller);
			if (inside)
				place(f, pad + (f.x - z.x) * scale, f.w * scale);
			else if (caller)
				place(f, pad, width - 2 * pad);
		}
		reset.classList.toggle("hidden", z.d === 0);
	}

	// the samples under matching frames, nested matches counted once
	function coverage(list) {
		var sum = 0, end = -1;
		list.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
		for (var i = 0; i < list.length; i++) {
			var f = list[i];
			if (f.x >= end) {
				sum += f.w;
				end = f.x + f.w;
			} else if (f.x + f.w > end) {
				sum += f.x + f.w - end;
				end = f.x + f.w;
			}
		}
		return sum;
	}

	function search(term) {
		var hits = [];
		for (var i = 0; i < frames.length; i++) {
			var on = term !== "" && frames[i].name.indexOf(term) >= 0;
			frames[i].g.classList.toggle("match", on);
			if (on)
				hits.push(frames[i]);
		}
		matched.textContent = term === "" ? "" : "Matched \"" + term + "\": " +
			hits.length + " frames, " + (100 * coverage(hits) / total).toFixed(1) + "% of " + unit;
	}

	function ask() {
		var term = window.prompt("Search frames whose name contains:", "");
		if (term !== null)
			search(term);
	}

	function frameOf(e) {
		var n = e.target;
		while (n && n !== svg && !(n.classList && n.classList.contains("f")))
			n = n.parentNode;
		return n && n.frame ? n.frame : null;
	}

	svg.addEventListener("mouseover", function (e) {
		var f = frameOf(e);
		if (f)
			details.textContent = f.title;
	});
	svg.addEventListener("mouseout", function (e) {
		if (frameOf(e))
			details.textContent = " ";
	});
	svg.addEventListener("click", function (e) {
		var f = frameOf(e);
		if (f)
			zoom(f);
	});
	reset.addEventListener("click", function () { zoom(frames[0]); });
	document.getElementById("search").addEventListener("click", ask);
	window.addEventListener("keydown", function (e) {
		if ((e.ctrlKey && e.key === "f") || e.key === "/") {
			e.preventDefault();
			ask();
		} else if (e.key === "Escape") {
			zoom(frames[0]);
			search("");
		}
	});
})();
