// The page of `risk-env serve`: shows what the server's GameSession says and sends the person's
// clicks back as action ids. Which ids are legal, what they mean and what they do is the server's word.
(function () {
  "use strict";
  const $ = function (id) { return document.getElementById(id); };
  const boardBox = $("board");
  let svg = null;
  let view = null;
  let busy = false;
  let legal = new Map(); // territory -> action id

  function sleep(ms) { return new Promise(function (done) { setTimeout(done, ms); }); }

  function setBusy(on) {
    busy = on;
    document.body.classList.toggle("busy", on);
    document.body.dataset.ready = on ? "false" : "true";
    document.querySelectorAll("#choices button, #new-game").forEach(function (b) { b.disabled = on; });
  }

  async function call(method, url, body) {
    const init = { method: method, headers: { "Content-Type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const r = await fetch(url, init);
    const data = await r.json();
    if (!r.ok) {
      const why = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail);
      throw new Error(why);
    }
    return data;
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function showBoard(text) {
    boardBox.innerHTML = text;
    svg = boardBox.querySelector("svg");
    svg.addEventListener("click", function (ev) {
      const hit = ev.target.closest("[data-t]");
      if (!hit || busy) return;
      const t = Number(hit.getAttribute("data-t"));
      if (legal.has(t)) act(legal.get(t));
    });
  }

  function logLine(e) {
    const li = el("li", e.seat === view.seat ? "mine" : "");
    li.style.borderColor = view.colors[e.seat] || "#8c8c8c";
    li.dataset.k = String(e.k);
    li.appendChild(el("span", "num", e.k + ". "));
    li.appendChild(el("span", "who", e.who + ": "));
    li.appendChild(el("span", "text", e.text));
    if (e.note) li.appendChild(el("span", "note", " [" + e.note + "]"));
    const log = $("log");
    log.appendChild(li);
    log.scrollTop = log.scrollHeight;
  }

  function showDice(dice) {
    if (!dice) return;
    const box = $("dice");
    box.innerHTML = "";
    dice.attacker.forEach(function (d) { box.appendChild(el("span", "die attacker", String(d))); });
    box.appendChild(el("span", "vs", "vs"));
    dice.defender.forEach(function (d) { box.appendChild(el("span", "die defender", String(d))); });
  }

  function showSeats(v) {
    const p = $("seats");
    p.innerHTML = "";
    v.players.forEach(function (name, seat) {
      const s = el("span", "seat", "player_" + seat + " = " + name);
      s.style.borderColor = v.colors[seat];
      p.appendChild(s);
    });
  }

  function showDecision(v) {
    svg.querySelectorAll(".legal").forEach(function (e) { e.classList.remove("legal"); });
    legal = new Map();
    const choices = $("choices");
    choices.innerHTML = "";
    const d = v.decision;
    $("prompt").textContent = d ? d.prompt : v.over ? "The game is over." : "The other players are moving…";
    if (d) {
      d.territories.forEach(function (c) {
        legal.set(c.t, c.action);
        ["t", "m"].forEach(function (p) {
          const e = svg.querySelector("#" + p + c.t);
          if (e) e.classList.add("legal");
        });
      });
      d.buttons.forEach(function (c) {
        const b = el("button", "choice", c.label);
        b.type = "button";
        b.dataset.action = String(c.action);
        b.addEventListener("click", function () { act(c.action); });
        choices.appendChild(b);
      });
    }
    $("result").textContent = v.result;
    $("saved").textContent = v.record ? "record saved to " + v.record : "";
    // the record holds the seed and every move, hence all that is hidden: the server gives it once the game is over
    const download = $("download");
    if (v.over) {
      download.setAttribute("href", "/api/record");
      download.removeAttribute("aria-disabled");
      download.title = "the game's record, which risk-env replay replays";
    } else {
      download.removeAttribute("href");
      download.setAttribute("aria-disabled", "true");
      download.title = "the record is available when the game ends";
    }
    const hand = $("hand");
    hand.innerHTML = "";
    v.hand.forEach(function (c) { hand.appendChild(el("li", "card " + c.symbol, c.name + " (" + c.symbol + ")")); });
    $("mission").textContent = v.mission ? "Your mission: " + v.mission : "";
    document.body.dataset.moves = String(v.moves);
    document.body.dataset.over = String(v.over);
  }

  async function update(v) {
    const pace = Number($("pace").value);
    for (const e of v.events) {
      logLine(e);
      showDice(e.dice);
      if (pace > 0 && e.seat !== view.seat) {
        window.riskBoard.apply(svg, e.frame);
        await sleep(pace);
      }
    }
    window.riskBoard.apply(svg, v.frame);
    view = v;
    showDecision(v);
  }

  async function act(action) {
    if (busy) return;
    setBusy(true);
    $("error").textContent = "";
    try {
      await update(await call("POST", "/api/act", { action: action }));
    } catch (err) {
      $("error").textContent = err.message;
      // the server's word on the game now: unchanged after a refused id, over after an agent's failure
      try { await update(await call("GET", "/api/game")); } catch (again) { /* the error above says enough */ }
    }
    setBusy(false);
  }

  async function load(v) {
    view = v;
    showSeats(v);
    showBoard(v.svg);
    $("log").innerHTML = "";
    $("dice").innerHTML = '<span class="none">no dice rolled yet</span>';
    (v.history || []).forEach(function (e) { logLine(e); showDice(e.dice); });
    await update(Object.assign({}, v, { events: [] })); // the history holds them already
  }

  $("new-game").addEventListener("click", async function () {
    if (busy) return;
    setBusy(true);
    $("error").textContent = "";
    try {
      await load(await call("POST", "/api/new", {}));
    } catch (err) {
      $("error").textContent = err.message;
      // an agent may fail before the person's first decision: the new game is then over, as the server has it
      try { await load(await call("GET", "/api/game")); } catch (again) { /* the error above says enough */ }
    }
    setBusy(false);
  });

  (async function () {
    setBusy(true);
    try {
      await load(await call("GET", "/api/game"));
    } catch (err) {
      $("error").textContent = err.message;
    }
    setBusy(false);
  })();
})();
