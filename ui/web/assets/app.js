// Agentdesk study pages: answers are sent as they are given, the page's main part is fetched
// again after each one (no reload), the keyboard answers as on the desktop (1-9, arrows,
// Enter), and a page that waits for the bot asks again until the reply is there. Without
// this script the buttons still work as plain forms.
(function () {
  "use strict";
  var focusSlot = null;   // data-slot of the highlighted question
  var busy = false;
  var timer = null;

  function main() { return document.getElementById("main"); }

  function showProblem(text) {
    var p = document.getElementById("problem");
    if (!p) { return; }
    p.textContent = text;
    p.hidden = !text;
  }

  function post(fields) {
    var m = main();
    var body = new URLSearchParams();
    body.set("form", m.dataset.form);
    body.set("at", fields.at || m.dataset.at);
    Object.keys(fields).forEach(function (k) { body.set(k, fields[k]); });
    return fetch("/act?" + m.dataset.query, {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "Accept": "application/json" }
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) { throw new Error(j.error || ("the server answered " + r.status)); }
        return j;
      });
    });
  }

  function refresh(keepProblem) {
    var m = main();
    return fetch("/fragment?" + m.dataset.query, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) {
        if (!r.ok) { return r.text().then(function () { throw new Error("the page could not be loaded (" + r.status + ")"); }); }
        return r.text();
      })
      .then(function (html) {
        var problem = keepProblem ? document.getElementById("problem").textContent : "";
        var y = window.scrollY;
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var fresh = holder.firstElementChild;
        if (fresh.dataset.reload) { window.location.reload(); return; } // a form posting off-site: the whole page's policy
        var old = main();
        var screenChanged = old.dataset.at !== fresh.dataset.at;
        old.replaceWith(fresh);
        if (problem) { showProblem(problem); }
        setup(screenChanged);
        if (!screenChanged) { window.scrollTo(0, y); }
      });
  }

  // Actions are sent one after the other, in the order they were given: a quick second click
  // waits for the first instead of being lost.
  var queue = Promise.resolve();
  var pending = 0;
  function act(fields) {
    fields.at = fields.at || main().dataset.at; // the page the action was made on
    pending++;
    busy = true;
    var run = function () {
      showProblem("");
      return post(fields).then(function () {
        return pending > 1 ? null : refresh(false);
      }, function (err) {
        return refresh(true).then(function () { showProblem(err.message); });
      }).catch(function (err) { showProblem(err.message); })
        .then(function () { pending--; busy = pending > 0; });
    };
    queue = queue.then(run, run);
    return queue;
  }

  // An answer: what the input is, as the session takes it.
  function answer(input) {
    var group = input.closest("[data-turn]");
    var f = { "do": "edit", turn: group ? group.dataset.turn : "-1", kind: input.dataset.kind,
      key: input.dataset.key, value: input.dataset.value };
    if (input.dataset.kind === "flow") {
      f.click = input.type === "checkbox" ? (input.checked ? "check" : "uncheck") : "radio";
    } else if (input.dataset.kind === "label") {
      f.value = input.checked ? "on" : "off";
    }
    var slot = input.closest("[data-slot]");
    if (slot) { focusSlot = slot.dataset.slot; }
    return act(f);
  }

  function slots() { return Array.prototype.slice.call(main().querySelectorAll("fieldset[data-slot]")); }

  function highlight(scroll) {
    var all = slots();
    if (!all.length) { return; }
    var cur = all.filter(function (s) { return s.dataset.slot === focusSlot; })[0];
    if (!cur) { cur = all.filter(function (s) { return !s.querySelector("input:disabled"); })[0] || all[0]; focusSlot = cur.dataset.slot; }
    all.forEach(function (s) { s.classList.toggle("focused", s === cur); });
    var turn = cur.closest(".turn");
    main().querySelectorAll(".turn.focused").forEach(function (t) { t.classList.remove("focused"); });
    if (turn) { turn.classList.add("focused"); }
    if (scroll) { cur.scrollIntoView({ block: "nearest" }); }
  }

  function move(delta, byTurn) {
    var all = slots();
    if (!all.length) { return; }
    var i = Math.max(0, all.findIndex(function (s) { return s.dataset.slot === focusSlot; }));
    var before = all[i].dataset.turn;
    var j = i;
    do {
      j += delta;
    } while (byTurn && j >= 0 && j < all.length && all[j].dataset.turn === before);
    if (j < 0 || j >= all.length) { return; }
    focusSlot = all[j].dataset.slot;
    highlight(true);
    var turn = all[j].dataset.turn;
    if (turn !== before && turn !== "-1") {
      post({ "do": "focus", turn: turn }).catch(function () {});
    }
  }

  function choose(n) {
    var cur = slots().filter(function (s) { return s.dataset.slot === focusSlot; })[0];
    if (!cur) { return; }
    var inputs = cur.querySelectorAll("input");
    var input = inputs[n - 1];
    if (!input || input.disabled) { return; }
    if (input.type === "checkbox") { input.checked = !input.checked; } else { input.checked = true; }
    answer(input).then(function () {
      var d = main().querySelector(".about-dialogue, .unit");
      if (input.type === "radio" && /-s\d+$/.test(focusSlot)) { move(1, false); }
    });
  }

  function onKey(e) {
    if (e.target && (e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT" && e.target.type === "text")) { return; }
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var k = e.key;
    if (k >= "1" && k <= "9") { choose(+k); e.preventDefault(); return; }
    var scales = main().querySelector("fieldset[data-slot$='-s0']");
    if (k === "ArrowDown") { move(1, false); e.preventDefault(); return; }
    if (k === "ArrowUp") { move(-1, false); e.preventDefault(); return; }
    if (k === "ArrowRight") { move(1, !!scales); e.preventDefault(); return; }
    if (k === "ArrowLeft") { move(-1, !!scales); e.preventDefault(); return; }
    if (k === "Enter") {
      if (e.target && e.target.tagName === "BUTTON") { return; }
      var b = main().querySelector("button[data-enter]");
      if (b && !b.disabled) { b.click(); e.preventDefault(); }
    }
  }

  function countdown() {
    var m = main();
    var due = document.getElementById("due");
    if (!m || !m.dataset.deadline || !due) { return; }
    var left = Math.round((+m.dataset.deadline - Date.now()) / 1000);
    if (left <= 0) { due.textContent = "Time is up."; refresh(false); return; }
    due.textContent = "Due in " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + ".";
  }

  function setup(screenChanged) {
    var m = main();
    if (!m) { return; }
    if (screenChanged) { focusSlot = null; }
    m.querySelectorAll("input[data-kind]").forEach(function (input) {
      input.addEventListener("change", function () { answer(input); });
    });
    m.querySelectorAll("form.act").forEach(function (form) {
      form.addEventListener("submit", function (e) {
        e.preventDefault();
        var fields = {};
        new FormData(form).forEach(function (v, k) { if (k !== "form" && k !== "at") { fields[k] = v; } });
        act(fields);
      });
    });
    var text = m.querySelector("textarea[name=text]");
    if (text) {
      text.addEventListener("keydown", function (e) {
        if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); text.form.requestSubmit(); }
      });
      if (!text.disabled) { text.focus(); }
    }
    var list = m.querySelector(".messages, .online");
    if (list && screenChanged !== false) { window.scrollTo(0, document.body.scrollHeight); }
    highlight(false);
    if (timer) { clearTimeout(timer); }
    timer = setTimeout(tick, m.dataset.poll ? 700 : 4000);
    countdown();
  }

  // tick asks for the page again: soon while the bot writes, every few seconds otherwise (so
  // the researcher's roster sees the page open, and a time-out shows).
  function tick() {
    timer = null;
    if (busy || document.hidden) { timer = setTimeout(tick, 1000); return; }
    var m = main();
    fetch("/fragment?" + m.dataset.query, { credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (html === null) { timer = setTimeout(tick, 5000); return; }
      var holder = document.createElement("div");
      holder.innerHTML = html;
      var fresh = holder.firstElementChild;
      if (fresh.dataset.reload) { window.location.reload(); return; }
      if (fresh.dataset.version !== main().dataset.version || fresh.dataset.at !== main().dataset.at) {
        var changed = fresh.dataset.at !== main().dataset.at;
        main().replaceWith(fresh);
        setup(changed);
      } else {
        timer = setTimeout(tick, main().dataset.poll ? 700 : 4000);
      }
    }).catch(function () { timer = setTimeout(tick, 5000); });
  }

  document.addEventListener("keydown", onKey);
  document.addEventListener("DOMContentLoaded", function () { setup(true); });
  setInterval(countdown, 1000);
})();
