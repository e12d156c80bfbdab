// Applies a frame of risk_env.records.svg.BoardSvg.frame() to a board drawn by BoardSvg.svg():
// it sets the colours, numbers, rings, arrow and panel texts, and decides nothing about the game.
(function (root) {
  "use strict";

  function byId(svg, id) {
    return svg.querySelector("#" + id);
  }

  function set(el, attrs) {
    if (!el) return;
    for (const k in attrs) el.setAttribute(k, attrs[k]);
  }

  function text(el, value) {
    if (el && el.textContent !== value) el.textContent = value;
  }

  const palettes = new WeakMap();

  function palette(svg) {
    let p = palettes.get(svg);
    if (!p) {
      p = JSON.parse(svg.getAttribute("data-palette"));
      palettes.set(svg, p);
    }
    return p;
  }

  function apply(svg, f) {
    const T = f.owner.length;
    const rings = new Set(f.rings);
    const pal = palette(svg);
    for (let t = 0; t < T; t++) {
      const o = f.owner[t] + 1; // the palette's entry 0 is an unclaimed territory
      set(byId(svg, "t" + t), { fill: pal.fill[o] });
      set(byId(svg, "m" + t), { fill: pal.marker[o], stroke: pal.edge[o] });
      const n = byId(svg, "n" + t);
      set(n, { fill: pal.ink[o] });
      text(n, o > 0 ? String(f.armies[t]) : "");
      set(byId(svg, "r" + t), { display: rings.has(t) ? "inline" : "none" });
    }
    const a = f.arrow;
    set(byId(svg, "arrow"), { display: a ? "inline" : "none" });
    if (a) {
      set(byId(svg, "arrow-halo"), { d: a.d });
      set(byId(svg, "arrow-head-halo"), { points: a.head });
      set(byId(svg, "arrow-line"), { d: a.d, stroke: a.color, "stroke-dasharray": a.dash });
      set(byId(svg, "arrow-head"), { points: a.head, fill: a.color });
      const label = byId(svg, "arrow-label");
      set(label, { x: a.lx, y: a.ly, fill: a.color });
      text(label, a.label);
    }
    f.marks.forEach(function (seat, t) {
      // a star on each territory a variant marks (a capital), in the marking seat's colour
      set(byId(svg, "mark" + t), seat >= 0 ? { display: "inline", fill: pal.marker[seat + 1] } : { display: "none" });
    });
    if (f.title === undefined) return; // no panel
    text(byId(svg, "title"), f.title);
    text(byId(svg, "subtitle"), f.subtitle);
    f.rows.forEach(function (r, seat) {
      set(byId(svg, "row" + seat), { fill: r.out ? "#a0a0a0" : "#2a2a2a", "font-weight": r.bold ? "bold" : "normal" });
      text(byId(svg, "turn" + seat), r.turn ? "\u25b6" : "");
      set(byId(svg, "swatch" + seat), { "fill-opacity": r.out ? "0.3" : "1" });
      text(byId(svg, "row" + seat + "-name"), r.name);
      text(byId(svg, "row" + seat + "-territories"), String(r.territories));
      text(byId(svg, "row" + seat + "-armies"), String(r.armies));
      text(byId(svg, "row" + seat + "-cards"), r.cards);
    });
    f.holders.forEach(function (c, k) {
      set(byId(svg, "holder" + k), c ? { fill: c, stroke: "#ffffff" } : { fill: "none", stroke: "#aaaaaa" });
    });
    const last = byId(svg, "last");
    if (last) {
      const spans = last.querySelectorAll("tspan");
      const x = spans.length ? spans[0].getAttribute("x") : "0";
      const y0 = spans.length ? Number(spans[0].getAttribute("y")) : 0;
      while (last.firstChild) last.removeChild(last.firstChild);
      f.last.forEach(function (line, k) {
        const s = document.createElementNS("http://www.w3.org/2000/svg", "tspan");
        s.setAttribute("x", x);
        s.setAttribute("y", String(Math.round((y0 + 16 * k) * 10) / 10));
        s.textContent = line;
        last.appendChild(s);
      });
    }
    text(byId(svg, "roll"), f.roll);
    text(byId(svg, "recent-head"), f.recent_head);
    for (let k = 0; ; k++) {
      const line = byId(svg, "recent" + k);
      if (!line) break;
      text(line, k < f.recent.length ? f.recent[k] : "");
    }
    text(byId(svg, "foot"), f.foot);
  }

  root.riskBoard = { apply: apply };
})(typeof window !== "undefined" ? window : this);
