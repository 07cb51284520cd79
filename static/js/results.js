// Race results. Without this file both pages still work (plain form posts); with it:
// - result entry: one key per driver in its "result" box (+ next free place, r retired,
//   d did not start, the digits of a place: "1", "10"), a place already taken makes room instead of
//   clashing, ▲/▼ reorder finishers without a round trip, the retirement fields show only
//   for a retired driver, and Enter saves the draft from any box;
// - what is typed and not saved says so, is kept on this device (localStorage) and offered
//   back after a reload or a lost connection; leaving the page with it asks first;
// - race-control desk: "Reopen…" jumps to the reason box without reloading.
(function () {
  "use strict";

  function sheet(form) {
    form.classList.add("js");
    var rows = Array.prototype.slice.call(form.querySelectorAll(".result-row"));
    var draft = form.querySelector("button.default-submit");
    var size = rows.length;

    function box(row) { return row.querySelector("select[name$='-outcome']"); }
    function place(row) {
      var value = box(row).value;
      return /^\d+$/.test(value) ? parseInt(value, 10) : 0;
    }
    function show(row) {
      var value = box(row).value;
      var state = /^\d+$/.test(value) ? "finished" : value;
      row.classList.remove("is-finished", "is-retired", "is-dns");
      if (state) row.classList.add("is-" + state);
      box(row).dataset.place = String(place(row));
      // A finisher's note (§16-0-6) is rare: a tap reaches it, the keyboard goes past it
      // to the next driver as before.
      var note = row.querySelector("input[name$='-note']");
      if (note) note.tabIndex = state === "finished" ? -1 : 0;
    }
    function holders(except) {
      var found = {};
      rows.forEach(function (row) {
        if (row !== except && place(row)) found[place(row)] = row;
      });
      return found;
    }
    function setPlace(row, p) { box(row).value = String(p); }
    function tell(row) { box(row).dispatchEvent(new Event("change", { bubbles: true })); }

    // A place taken by someone else: move the others along, as when moving a line.
    function makeRoom(row, from, to) {
      var others = holders(row);
      if (!others[to]) return;
      if (from) {
        rows.forEach(function (other) {
          if (other === row) return;
          var p = place(other);
          if (to < from && p >= to && p < from) setPlace(other, p + 1);
          if (to > from && p <= to && p > from) setPlace(other, p - 1);
        });
        return;
      }
      var end = to;
      while (others[end]) end++;
      if (end <= size) {
        for (var p = end - 1; p >= to; p--) setPlace(others[p], p + 1);
        return;
      }
      // No free place below: close every gap, the newcomer just before the old holder.
      var order = rows.filter(function (r) { return r !== row && place(r); });
      order.sort(function (a, b) { return place(a) - place(b); });
      var at = order.filter(function (r) { return place(r) < to; }).length;
      order.splice(at, 0, row);
      order.forEach(function (r, i) { setPlace(r, i + 1); });
    }

    function nextFree(row) {
      var others = holders(row);
      for (var p = 1; p <= size; p++) if (!others[p]) return p;
      return 0;
    }
    function focusNext(row) {
      var next = rows[rows.indexOf(row) + 1];
      var target = next ? box(next) : form.querySelector("#save-draft");
      if (target) target.focus();
    }
    function finish(row) {
      if (!place(row)) {
        var p = nextFree(row);
        if (p) setPlace(row, p);
        tell(row);
      }
    }
    function move(row, step) {
      var p = place(row);
      if (!p) return;
      var order = rows.filter(function (r) { return place(r); });
      order.sort(function (a, b) { return place(a) - place(b); });
      var other = order[order.indexOf(row) + step];
      if (!other) return;
      var q = place(other);
      setPlace(other, p);
      setPlace(row, q);
      rows.forEach(show);
      tell(row);
    }

    // Capture: runs before htmx posts the summary, so it sees the places made room.
    form.addEventListener("change", function (event) {
      var select = event.target;
      if (!select.matches || !select.matches("select[name$='-outcome']")) return;
      var row = select.closest(".result-row");
      var from = parseInt(select.dataset.place || "0", 10);
      var to = place(row);
      if (to && to !== from) makeRoom(row, from, to);
      rows.forEach(show);
    }, true);

    // Digits are places, taken here rather than by the browser's select type-ahead (which
    // jumps from "1st" to "10th" on "1"): one digit is that place at once, a second one
    // typed quickly after it makes a two-digit place ("1" then "0": 10th) when the grid
    // has that many drivers.
    // The second digit undoes what the first one moved ("1" then "0": the driver holding
    // 1st keeps it), from a snapshot of every box taken before the first.
    var typed = { box: null, text: "", at: 0, before: null };
    function snapshot() {
      return rows.map(function (r) { return box(r).value; });
    }
    function restore(values) {
      rows.forEach(function (r, i) { box(r).value = values[i]; });
      rows.forEach(show);
    }
    function digit(row, key) {
      var target = box(row);
      var now = Date.now();
      var going = typed.box === target && now - typed.at < 1000;
      var text = going ? typed.text + key : key;
      if (parseInt(text, 10) > size || (going && parseInt(text, 10) === 0)) {
        going = false;
        text = key;
      }
      if (going) restore(typed.before);
      typed = { box: target, text: text, at: now, before: going ? typed.before : snapshot() };
      var p = parseInt(text, 10);
      if (!p || p > size) return;
      if (place(row) === p && !going) return;
      setPlace(row, p);
      tell(row);
    }

    form.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.key === "Enter" && target.tagName === "SELECT") {
        event.preventDefault();
        form.requestSubmit(draft);
        return;
      }
      if (!target.matches || !target.matches("select[name$='-outcome']")) return;
      var row = target.closest(".result-row");
      var key = event.key;
      if (/^[0-9]$/.test(key)) {
        event.preventDefault();
        digit(row, key);
      } else if (key === "+" || key === "=" || key === "f" || key === "F") {
        event.preventDefault();
        finish(row);
        focusNext(row);
      } else if ("rRaA".indexOf(key) >= 0 && key.length === 1) {
        event.preventDefault();
        target.value = "retired";
        tell(row);
        row.querySelector("select[name$='-cause']").focus();
      } else if ("dDnN".indexOf(key) >= 0 && key.length === 1) {
        event.preventDefault();
        target.value = "dns";
        tell(row);
        focusNext(row);
      } else if (key === "-" || key === "Delete" || key === "Backspace") {
        event.preventDefault();
        target.value = "";
        tell(row);
      }
    });

    rows.forEach(function (row) {
      row.querySelectorAll("button.move, button.next-place").forEach(function (button) {
        button.tabIndex = -1; // keys do this from the result box; Tab stays short
      });
      var next = row.querySelector("button.next-place");
      next.hidden = false;
      next.addEventListener("click", function () { finish(row); });
      // One tap for a retirement (then its cause) or a driver who did not start.
      row.querySelectorAll("button.quick-outcome").forEach(function (button) {
        button.hidden = false;
        button.tabIndex = -1;
        button.addEventListener("click", function () {
          box(row).value = button.dataset.outcome;
          tell(row);
          if (button.dataset.outcome === "retired") row.querySelector("select[name$='-cause']").focus();
        });
      });
      row.querySelectorAll("button.move").forEach(function (button) {
        button.addEventListener("click", function (event) {
          event.preventDefault();
          move(row, /:up$/.test(button.value) ? -1 : 1);
        });
      });
      show(row);
    });
  }

  // --- Kept on this device until saved ----------------------------------------------------
  // The draft of a version of the table's result: once the server holds a later version
  // (this one saved, or someone else's), what was kept is forgotten.
  function keep(form) {
    var key = form.dataset.draft;
    var version = form.dataset.version;
    var note = form.querySelector(".unsaved-note");
    var offer = form.querySelector(".restore");
    var sending = false;
    function fields() {
      return Array.prototype.slice.call(form.querySelectorAll(".result-rows select[name], .result-rows input[name]"));
    }
    function values() {
      var found = {};
      fields().forEach(function (el) { found[el.name] = el.value; });
      return found;
    }
    var stored = values();  // what the server sent
    function same(a, b) {
      return Object.keys(a).concat(Object.keys(b)).every(function (k) {
        return (a[k] || "") === (b[k] || "");
      });
    }
    function read() {
      try {
        var kept = JSON.parse(localStorage.getItem(key) || "null");
        return kept && kept.version === version ? kept : null;
      } catch (e) { return null; }
    }
    function forget() {
      try { localStorage.removeItem(key); } catch (e) { /* nothing kept */ }
    }
    function dirty() { return !same(values(), stored); }
    function mark() {
      var unsaved = dirty();
      form.classList.toggle("unsaved", unsaved);
      note.textContent = unsaved ? form.dataset.unsaved : "";
      note.hidden = !unsaved;
      try {
        if (unsaved) {
          localStorage.setItem(key, JSON.stringify({ version: version, values: values(), at: Date.now() }));
        } else {
          forget();
        }
      } catch (e) { /* private mode or full: the page still works */ }
    }

    var kept = read();
    if (!kept) forget();  // an older version's draft: saved, or replaced meanwhile
    else if (!same(kept.values, stored)) {
      offer.querySelector("[data-when]").textContent = "(" + new Date(kept.at).toLocaleTimeString(
        document.documentElement.lang || undefined, { hour: "2-digit", minute: "2-digit" }) + ")";
      offer.hidden = false;
      offer.querySelector("[data-restore]").addEventListener("click", function () {
        fields().forEach(function (el) { if (el.name in kept.values) el.value = kept.values[el.name]; });
        offer.hidden = true;
        form.querySelectorAll(".result-row").forEach(function (row) {
          row.querySelector("select[name$='-outcome']").dispatchEvent(new Event("change", { bubbles: true }));
        });
        mark();
        form.querySelector("#save-draft").focus();
      });
      offer.querySelector("[data-discard]").addEventListener("click", function () {
        forget();
        offer.hidden = true;
      });
    }
    form.addEventListener("change", mark);
    form.addEventListener("input", mark);
    // Kept until the next page shows the server holds it (its version then goes up).
    form.addEventListener("submit", function () { sending = true; });
    window.addEventListener("beforeunload", function (event) {
      if (sending || !dirty()) return undefined;
      event.preventDefault();
      event.returnValue = form.dataset.leave;
      return form.dataset.leave;
    });
  }

  function desk() {
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a[data-reopen]");
      if (!link) return;
      var form = document.getElementById("reopen-" + link.dataset.reopen);
      if (!form) return;
      event.preventDefault();
      form.scrollIntoView({ block: "center" });
      form.querySelector("input[name='reason']").focus();
    });
  }

  var form = document.getElementById("result-sheet");
  if (form) {
    sheet(form);
    keep(form);
  }
  if (document.getElementById("desk-status")) desk();
})();
