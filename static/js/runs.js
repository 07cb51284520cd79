// Qualifying run entry (templates/qualifying/table.html). Without this file every row is a
// plain form that saves with Enter or its button. With it:
// - a row whose boxes differ from what is stored says "Not saved" (words and colour), and
//   what is typed is kept on this device (localStorage) until the server stored it; after a
//   reload the row offers it back;
// - leaving the page with unsaved rows asks first;
// - a save that does not reach the server says so on the row, keeps the values and offers
//   "Retry"; the save button cannot send twice;
// - steppers (− / +) for the small counts, tyres by their first letter, Enter saves from
//   any box, and after a save the keyboard goes to the next driver without a run.
// Every sentence shown comes from the page (data-* of #runs): nothing to translate here.
(function () {
  "use strict";

  var runs = document.getElementById("runs");
  if (!runs) return;
  var words = runs.dataset;

  // A closed qualifying answers 409 with the row telling why: show it, like a 200.
  if (window.htmx && htmx.config && htmx.config.responseHandling) {
    htmx.config.responseHandling = [{ code: "409", swap: true }].concat(
      htmx.config.responseHandling
    );
  }

  function rowsNow() {
    return Array.prototype.slice.call(runs.querySelectorAll("form.run-row"));
  }
  function controls(row) {
    return Array.prototype.slice.call(
      row.querySelectorAll(".fields input, .short input")
    ).filter(function (el) { return el.name; });
  }
  function values(row) {
    var found = {};
    controls(row).forEach(function (el) {
      if (el.type === "radio") {
        if (el.checked) found[el.name] = el.value;
      } else if (el.type === "checkbox") {
        found[el.name] = el.checked ? "on" : "";
      } else {
        found[el.name] = el.value;
      }
    });
    return found;
  }
  function changed(row) {
    return controls(row).some(function (el) {
      if (el.type === "radio" || el.type === "checkbox") return el.checked !== el.defaultChecked;
      return el.value !== el.defaultValue;
    });
  }
  function dirty(row) {
    return row.dataset.shows === "typed" || changed(row);
  }
  function status(row, text) {
    var place = row.querySelector("[data-status]");
    if (place && text) place.textContent = text;
  }

  // --- Kept on the device until saved -----------------------------------------------------
  function store(row) {
    var key = row.dataset.draft;
    try {
      if (dirty(row)) {
        localStorage.setItem(key, JSON.stringify({ values: values(row), at: Date.now() }));
      } else {
        localStorage.removeItem(key);
      }
    } catch (e) { /* private mode or full: the page still works */ }
  }
  function draftOf(row) {
    try {
      var raw = localStorage.getItem(row.dataset.draft);
      return raw ? JSON.parse(raw) : null;
    } catch (e) { return null; }
  }
  function forget(row) {
    try { localStorage.removeItem(row.dataset.draft); } catch (e) { /* nothing kept */ }
  }
  function apply(row, kept) {
    controls(row).forEach(function (el) {
      if (!(el.name in kept)) {
        if (el.type === "radio") el.checked = false;
        return;
      }
      if (el.type === "radio") el.checked = el.value === kept[el.name];
      else if (el.type === "checkbox") el.checked = kept[el.name] === "on";
      else el.value = kept[el.name];
    });
    var first = row.querySelector(".fields input");
    if (first) first.dispatchEvent(new Event("change", { bubbles: true }));
  }
  function same(a, b) {
    var keys = Object.keys(a).concat(Object.keys(b));
    return keys.every(function (k) { return (a[k] || "") === (b[k] || ""); });
  }
  function offer(row) {
    var kept = draftOf(row);
    var box = row.querySelector(".restore");
    if (!kept || !box) return;
    if (same(kept.values, values(row))) return;
    var when = new Date(kept.at);
    box.querySelector("[data-when]").textContent =
      "(" + when.toLocaleTimeString(document.documentElement.lang || undefined,
        { hour: "2-digit", minute: "2-digit" }) + ")";
    box.hidden = false;
    box.querySelector("[data-restore]").addEventListener("click", function () {
      apply(row, kept.values);
      box.hidden = true;
      mark(row);
      var target = row.querySelector(".save");
      if (target) target.focus();
    });
    box.querySelector("[data-discard]").addEventListener("click", function () {
      forget(row);
      box.hidden = true;
    });
  }

  // --- Saved or not, in words and colour --------------------------------------------------
  function mark(row) {
    var unsaved = dirty(row);
    row.classList.toggle("unsaved", unsaved);
    if (unsaved && !row.classList.contains("failed")) status(row, words.unsaved);
  }

  function failed(row, text) {
    row.classList.add("failed", "unsaved");
    delete row.dataset.sending;
    status(row, text);
    var retry = row.querySelector(".retry");
    if (retry) {
      retry.hidden = false;
      retry.focus();
    }
    store(row);
  }

  // --- One row --------------------------------------------------------------------------
  function setUp(row) {
    if (row.dataset.ready) return;
    row.dataset.ready = "1";
    row.querySelectorAll("button.step").forEach(function (button) {
      button.hidden = false;
      button.tabIndex = -1; // the keyboard has ↑ ↓ in the box: Tab stays short
      button.addEventListener("click", function () {
        var input = button.parentNode.querySelector("input");
        var next = Math.max(0, (parseInt(input.value, 10) || 0) + parseInt(button.dataset.step, 10));
        input.value = String(next);
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.dispatchEvent(new Event("change", { bubbles: true }));
      });
    });
    var retry = row.querySelector(".retry");
    if (retry) {
      retry.addEventListener("click", function () {
        retry.hidden = true;
        row.classList.remove("failed");
        row.requestSubmit(row.querySelector("button.save"));
      });
    }
    // A thumb that picks the tyres goes on to the throws (the keyboard's arrows stay in
    // the tyres): one tap less a run.
    var tapped = 0;
    row.querySelectorAll("label.segment").forEach(function (label) {
      label.addEventListener("pointerdown", function () { tapped = Date.now(); });
    });
    row.addEventListener("change", function (event) {
      var throws = row.querySelector("input[name$='-throws']");
      if (event.target.type === "radio" && Date.now() - tapped < 1500 && throws && !throws.value) {
        tapped = 0;
        throws.focus();
      }
    });
    row.addEventListener("input", function () { mark(row); store(row); });
    row.addEventListener("change", function () { mark(row); store(row); });
    row.addEventListener("click", function (event) {
      var fill = event.target.closest && event.target.closest("[data-fill]");
      if (!fill) return;
      var box = row.querySelector("input[name$='-stopwatch']");
      box.value = fill.dataset.fill;
      box.dispatchEvent(new Event("input", { bubbles: true }));
      box.focus();
    });
    row.addEventListener("keydown", function (event) {
      var target = event.target;
      if (event.ctrlKey || event.metaKey || event.altKey || target.tagName !== "INPUT") return;
      if (event.key === "Enter") {
        event.preventDefault();
        row.requestSubmit(row.querySelector("button.save"));
        return;
      }
      if (target.type === "radio" && event.key.length === 1) {
        var pick = row.querySelector("input[type=radio][data-key='" + event.key.toLowerCase() + "']");
        if (pick) {
          event.preventDefault();
          pick.checked = true;
          pick.focus();
          pick.dispatchEvent(new Event("change", { bubbles: true }));
        }
      }
    });
    mark(row);
    if (row.classList.contains("saved") && !row.classList.contains("unsaved")) forget(row);
    else if (row.dataset.shows === "typed") store(row);
    else offer(row);
  }

  function isSave(event) {
    var elt = event.detail && event.detail.elt;
    return elt && elt.matches && elt.matches("form.run-row");
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!isSave(event)) return;
    var row = event.detail.elt;
    if (row.dataset.sending) { // the first send is still on its way
      event.preventDefault();
      return;
    }
    row.dataset.sending = "1";
    row.classList.remove("failed");
    status(row, words.saving);
  });
  document.addEventListener("htmx:sendError", function (event) {
    if (isSave(event)) failed(event.detail.elt, words.offline);
  });
  document.addEventListener("htmx:responseError", function (event) {
    if (isSave(event)) failed(event.detail.elt, words.failed);
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    if (isSave(event)) delete event.detail.elt.dataset.sending;
  });

  // After a row came back: keep or forget what was typed, then move the keyboard on.
  document.addEventListener("htmx:afterSettle", function () {
    rowsNow().forEach(setUp);
    var row = runs.querySelector("form.run-row[data-focus]");
    if (!row) return;
    var where = row.getAttribute("data-focus");
    row.removeAttribute("data-focus");
    var target = null;
    if (where === "next") {
      var all = rowsNow();
      var at = all.indexOf(row);
      var order = all.slice(at + 1).concat(all.slice(0, at));
      var next = order.find(function (r) { return r.dataset.shows !== "stored"; });
      if (next) target = next.querySelector("input[type=radio]:checked") || next.querySelector(".fields input");
    } else {
      target = row.querySelector("[aria-invalid='true']") || row.querySelector(".short input, .fields input");
    }
    if (target) {
      target.focus();
      if (target.scrollIntoView) target.scrollIntoView({ block: "nearest" });
    }
  });

  window.addEventListener("beforeunload", function (event) {
    if (rowsNow().some(dirty)) {
      event.preventDefault();
      event.returnValue = words.leave;
      return words.leave;
    }
  });

  rowsNow().forEach(setUp);
})();
