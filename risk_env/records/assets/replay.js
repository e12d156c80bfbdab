// The HTML replay of risk_env.records.html: shows the positions the page holds, one at a time.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const svg = document.querySelector("#board svg");
  const list = document.getElementById("move-list");
  const scrub = document.getElementById("scrub");
  const where = document.getElementById("where");
  const playButton = document.getElementById("play");
  const speed = document.getElementById("speed");
  const items = new Map();
  list.querySelectorAll("li.move").forEach(function (li) {
    items.set(Number(li.dataset.k), li);
  });
  const cursors = [document.getElementById("cursor0"), document.getElementById("cursor1")];
  const n = data.moves;
  let k = 0;
  let timer = null;

  function show(to) {
    to = Math.max(0, Math.min(n, to));
    const before = items.get(k);
    if (before) before.classList.remove("current");
    k = to;
    window.riskBoard.apply(svg, data.frames[k]);
    const li = items.get(k);
    if (li) {
      li.classList.add("current");
      const top = li.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + li.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top - list.clientHeight / 3;
      }
    }
    scrub.value = String(k);
    where.textContent = "move " + k + " / " + n;
    cursors.forEach(function (c) {
      if (!c) return;
      const x = Number(c.dataset.x0) + (Number(c.dataset.w) * k) / Math.max(1, n);
      c.setAttribute("x1", x.toFixed(1));
      c.setAttribute("x2", x.toFixed(1));
    });
    document.body.dataset.position = String(k);
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    playButton.textContent = "\u25b6";
    document.body.dataset.playing = "false";
  }

  function play() {
    if (timer !== null) return stop();
    if (k >= n) show(0);
    playButton.textContent = "\u275a\u275a";
    document.body.dataset.playing = "true";
    timer = setInterval(function () {
      if (k >= n) return stop();
      show(k + 1);
    }, Number(speed.value));
  }

  function turnStep(dir) {
    const starts = data.turns;
    if (dir > 0) {
      const next = starts.find(function (s) { return s > k; });
      show(next === undefined ? n : next);
    } else {
      const prev = starts.filter(function (s) { return s < k; }).pop();
      show(prev === undefined ? 0 : prev);
    }
  }

  document.getElementById("first").addEventListener("click", function () { stop(); show(0); });
  document.getElementById("prev").addEventListener("click", function () { stop(); show(k - 1); });
  document.getElementById("next").addEventListener("click", function () { stop(); show(k + 1); });
  document.getElementById("last").addEventListener("click", function () { stop(); show(n); });
  playButton.addEventListener("click", play);
  speed.addEventListener("change", function () { if (timer !== null) { stop(); play(); } });
  scrub.addEventListener("input", function () { stop(); show(Number(scrub.value)); });
  list.addEventListener("click", function (ev) {
    const li = ev.target.closest("li.move");
    if (li) { stop(); show(Number(li.dataset.k)); }
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.target instanceof HTMLSelectElement) return;
    const keys = { ArrowRight: 1, ArrowLeft: -1 };
    if (ev.key in keys) { stop(); show(k + keys[ev.key]); }
    else if (ev.key === "PageDown") { stop(); turnStep(1); }
    else if (ev.key === "PageUp") { stop(); turnStep(-1); }
    else if (ev.key === "Home") { stop(); show(0); }
    else if (ev.key === "End") { stop(); show(n); }
    else if (ev.key === " ") { play(); }
    else return;
    ev.preventDefault();
  });
  show(0);
})();
