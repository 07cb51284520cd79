// A table without Wi-Fi (issue 31), in the page: no service worker needed, so a venue's
// plain-HTTP laptop gets it too. On a table link's pages (#offline-bar data-kind="table"):
// - every write the referee makes goes into the link's outbox (outbox-core.js) when the
//   network is down, when earlier entries still wait, or when its first send was lost;
//   entries leave in order as soon as the network is back (the online event, a timer, and
//   Background Sync through the service worker where the browser has it);
// - "n entries to send" is always on screen; an entry is shown saved only once the server
//   answered; back online, the page says what was sent, what was refused and why, and a
//   refused entry stays, beside what the server holds, until the referee picks one;
// - "Roll for me" needs the server: offline it is disabled and says to roll the black die;
// - a link replaced meanwhile (410, or the API's 401): its outbox and kept pages go.
// On secure origins it registers the service worker (sw.js): the table's and the players'
// pages open offline, saying since when. Every sentence comes from the page (data-w-*).
(function () {
  "use strict";

  var bar = document.getElementById("offline-bar");
  if (!bar || !window.PaddockOutbox) return;
  var outbox = window.PaddockOutbox;
  var words = {};
  Object.keys(bar.dataset).forEach(function (name) {
    if (name.indexOf("w") === 0 && name.length > 1) {
      words[name.charAt(1).toLowerCase() + name.slice(2)] = bar.dataset[name];
    }
  });
  // What came back, and the refused entries: in the page's flow under the bar (the bar stays
  // on screen, one or two lines; a report there would cover the page under it).
  var below = document.getElementById("offline-report") || bar;
  var scope = bar.dataset.scope;
  var isTable = bar.dataset.kind === "table";
  var copy = bar.dataset.offlineCopy === "1";
  var CONTACT = "paddock-contact:" + (scope || location.pathname);
  var REPORT = "paddock-outbox-report:" + scope;

  function say(text, values) {
    return text.replace(/\{(\w+)\}/g, function (all, name) {
      return values && name in values ? values[name] : all;
    });
  }
  function hhmm(date) {
    return date.toLocaleTimeString(document.documentElement.lang || undefined,
      { hour: "2-digit", minute: "2-digit", hour12: false });
  }
  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // --- Online, offline, since when --------------------------------------------------------
  // The last send found no server although the phone has a network, or this page is a copy
  // kept by the service worker (navigator.onLine is not to be trusted alone: a Wi-Fi that
  // lost the laptop still says online).
  var unreachable = copy;
  function offline() { return !navigator.onLine || unreachable; }
  function lastContact() {
    var kept = 0;
    try { kept = parseInt(localStorage.getItem(CONTACT) || "0", 10); } catch (e) { kept = 0; }
    var served = Date.parse(bar.dataset.servedAt || "") || 0;
    return new Date(Math.max(kept, served) || Date.now());
  }
  function contact() {
    try { localStorage.setItem(CONTACT, String(Date.now())); } catch (e) { /* private mode */ }
  }
  function showState() {
    var line = bar.querySelector(".offline-since");
    var off = offline() || copy;
    line.hidden = !off;
    if (off) {
      line.textContent = say(copy && !isTable ? words.copyOf : words.offlineSince,
        { time: hhmm(lastContact()) });
    }
    bar.classList.toggle("is-offline", off);
    document.querySelectorAll("button[name=system]").forEach(function (button) {
      button.disabled = off;
      var note = button.parentNode.querySelector(".roll-offline");
      if (off && !note && words.rollOffline) {
        note = el("small", "roll-offline", words.rollOffline);
        note.setAttribute("role", "note");
        button.parentNode.appendChild(note);
      } else if (!off && note) {
        note.remove();
      }
    });
  }
  if (!copy && navigator.onLine) contact();

  // --- The service worker (secure origins) ------------------------------------------------
  var registration = null;
  if (window.isSecureContext && "serviceWorker" in navigator && bar.dataset.sw) {
    navigator.serviceWorker.register(bar.dataset.sw, { scope: "/" }).then(function (reg) {
      registration = reg;
    }, function () { /* no worker: the outbox still works */ });
    navigator.serviceWorker.addEventListener("message", function (event) {
      if (event.data && event.data.type === "outbox-flush") flush();
    });
  }

  window.addEventListener("online", function () { unreachable = false; showState(); flush(); });
  window.addEventListener("offline", showState);
  showState();
  if (!isTable) return;

  // --- What a form holds, in words ----------------------------------------------------------
  // The words a person reads beside a box: its field's label, without what the label also
  // holds (the box, the stopwatch's live reading, a note in small print).
  function labelText(node) {
    var named = node.querySelector(".field-label") || node;
    var text = named.cloneNode(true);
    text.querySelectorAll("input, select, textarea, button, small, .echo, [hidden]")
      .forEach(function (part) { part.remove(); });
    return text.textContent.replace(/\s+/g, " ").trim();
  }
  function labelOf(control) {
    var group = control.closest("fieldset");
    var legend = group && group.querySelector("legend");
    // A radio's own label is its value ("Soft"): the group's legend names the field.
    if (control.type === "radio" && legend) return labelText(legend);
    var named = (control.getAttribute("aria-labelledby") || "").split(/\s+/)
      .map(function (id) { return id && control.ownerDocument.getElementById(id); })
      .filter(Boolean);
    if (named.length) return named.map(labelText).join(" ");
    if (control.labels && control.labels.length) return labelText(control.labels[0]);
    if (legend) return labelText(legend);
    return control.getAttribute("aria-label") || control.name;
  }
  function valueOf(control) {
    if (control.tagName === "SELECT") {
      var option = control.options[control.selectedIndex];
      return option ? option.textContent.trim() : "";
    }
    if (control.type === "radio") {
      var label = control.closest("label");
      return label ? label.textContent.trim() : control.value;
    }
    if (control.type === "checkbox") return control.checked ? "✓" : "";
    if (control.type === "file") {
      return Array.prototype.map.call(control.files || [], function (f) { return f.name; }).join(", ");
    }
    return control.value;
  }
  // [label, value] of the boxes a person filled (hidden fields and empty boxes left out).
  function readable(form) {
    var lines = [];
    Array.prototype.forEach.call(form.elements, function (control) {
      if (!control.name || control.type === "hidden" || control.type === "submit" ||
          control.type === "button" || control.name === "csrfmiddlewaretoken") return;
      if ((control.type === "radio" || control.type === "checkbox") && !control.checked) return;
      var value = valueOf(control);
      if (value === "" || value === undefined) return;
      lines.push([labelOf(control), value]);
    });
    return lines;
  }
  function titleOf(form, submitter) {
    var named = form.getAttribute("aria-labelledby");
    var label = named && document.getElementById(named);
    var section = form.closest("section, article");
    var heading = section && section.querySelector("h2, h3");
    var parts = [];
    if (label) parts.push(label.textContent.replace(/\s+/g, " ").trim());
    else if (heading) parts.push(heading.textContent.trim());
    else parts.push(document.title.split("·")[0].trim());
    if (submitter && submitter.textContent.trim()) parts.push(submitter.textContent.trim());
    return parts.join(" · ");
  }
  function fieldsOf(data) {
    var fields = [];
    data.forEach(function (value, name) {
      if (value && typeof value === "object") {
        if (!value.size && !value.name) return; // an empty file box
        fields.push([name, { blob: value, name: value.name || "photo.jpg" }]);
      } else {
        fields.push([name, String(value)]);
      }
    });
    return fields;
  }

  // --- The counter, the report, the refused entries ----------------------------------------
  var pendingCount = 0;
  function render() {
    return outbox.all(scope).then(function (entries) {
      var pending = entries.filter(function (e) { return e.state === "pending"; });
      var refused = entries.filter(function (e) { return e.state === "refused"; });
      pendingCount = pending.length;
      var count = bar.querySelector(".outbox-count");
      // An empty sheet has nothing sent: it says so until this phone queues something.
      if (pending.length) bar.dataset.sheetEmpty = "0";
      var none = bar.dataset.sheetEmpty === "1" && words.empty ? words.empty : words.none;
      var text = pending.length === 0 ? none : pending.length === 1 ? words.one
        : say(words.many, { n: pending.length });
      if (refused.length) {
        text += " · " + (refused.length === 1 ? words.refusedOne
          : say(words.refusedMany, { n: refused.length }));
      }
      count.textContent = text;
      count.dataset.pending = String(pending.length);
      count.dataset.refused = String(refused.length);
      bar.classList.toggle("has-pending", pending.length > 0);
      renderRefused(refused);
      forgetResolved(refused);
      markQueuedRows(pending);
      return entries;
    });
  }

  function whyOf(entry) {
    var answer = entry.answer || {};
    if (answer.messages && answer.messages.length) {
      return answer.messages.map(function (m) { return m.text; }).join(" ");
    }
    var doc = serverDoc(answer);
    if (!doc) return answer.text || String(answer.status || "");
    var found = doc.querySelectorAll(".row-messages .error, .flash.error, .errors li, [role=alert], .error");
    var texts = [];
    Array.prototype.forEach.call(found, function (node) {
      var t = node.textContent.replace(/\s+/g, " ").trim();
      if (t && texts.indexOf(t) < 0) texts.push(t);
    });
    return texts.join(" ") || String(answer.status || "");
  }
  function serverDoc(answer) {
    if (!answer || (answer.contentType || "").indexOf("html") < 0 || !answer.text) return null;
    return new DOMParser().parseFromString(answer.text, "text/html");
  }
  function list(lines) {
    var dl = el("dl", "outbox-values");
    lines.forEach(function (line) {
      dl.appendChild(el("dt", "", line[0]));
      dl.appendChild(el("dd", "", line[1]));
    });
    return dl;
  }
  // What the server holds, from its answer: a run's row brings the run it stores (its
  // boxes show what was typed), else the page's main part without its forms and scripts
  // (names come escaped by the server's templates; nothing runs).
  function held(entry) {
    var box = el("div", "outbox-held");
    var doc = serverDoc(entry.answer);
    if (!doc) return box;
    var row = doc.querySelector("form.run-row");
    if (row) {
      var stored = row.querySelector("template.run-stored");
      if (!stored) {
        box.appendChild(el("p", "outbox-nothing", words.nothing));
        return box;
      }
      var lines = [];
      stored.content.querySelectorAll("dt").forEach(function (dt) {
        var dd = dt.nextElementSibling;
        lines.push([dt.textContent.trim(), dd ? dd.textContent.trim() : ""]);
      });
      box.appendChild(list(lines));
      return box;
    }
    var main = doc.querySelector("main") || doc.body;
    main.querySelectorAll("script, style, link, form, button, input, select, textarea, nav, .messages, .offline-bar")
      .forEach(function (node) { node.remove(); });
    Array.prototype.forEach.call(main.querySelectorAll("*"), function (node) {
      Array.prototype.slice.call(node.attributes).forEach(function (attr) {
        if (attr.name !== "class" && attr.name !== "lang") node.removeAttribute(attr.name);
      });
    });
    Array.prototype.forEach.call(main.childNodes, function (node) {
      box.appendChild(document.importNode(node, true));
    });
    return box;
  }
  function renderRefused(refused) {
    var place = below.querySelector(".outbox-refused");
    place.textContent = "";
    refused.forEach(function (entry) {
      var card = el("article", "outbox-refused-entry");
      card.dataset.entry = entry.id;
      card.appendChild(el("h3", "", words.refused + " · " + entry.label));
      var why = el("p", "outbox-why error");
      why.appendChild(el("strong", "", words.why + " "));
      why.appendChild(document.createTextNode(whyOf(entry)));
      card.appendChild(why);
      var sides = el("div", "outbox-sides");
      var mine = el("section", "outbox-mine");
      mine.appendChild(el("h4", "", words.typed));
      mine.appendChild(list(entry.typed || []));
      var theirs = el("section", "outbox-theirs");
      theirs.appendChild(el("h4", "", words.held));
      theirs.appendChild(held(entry));
      sides.appendChild(mine);
      sides.appendChild(theirs);
      card.appendChild(sides);
      var actions = el("div", "outbox-actions");
      var keepServer = el("button", "secondary", words.keepServer);
      keepServer.type = "button";
      keepServer.addEventListener("click", function () {
        outbox.remove(entry.id).then(render);
      });
      var again = el("button", "", words.sendAgain);
      again.type = "button";
      again.addEventListener("click", function () { sendAgain(entry); });
      actions.appendChild(keepServer);
      actions.appendChild(again);
      card.appendChild(actions);
      place.appendChild(card);
    });
  }
  // The referee keeps what they typed: sent again as a new write, based on the version the
  // server holds now (read from its answer), at the end of the outbox.
  function sendAgain(entry) {
    var doc = serverDoc(entry.answer);
    var version = doc && doc.querySelector("input[name=version]");
    var fields = (entry.fields || []).map(function (f) {
      return f[0] === "version" && version ? ["version", version.value] : f;
    });
    var fresh = {
      scope: entry.scope, url: entry.url, fields: fields, headers: entry.headers,
      htmx: entry.htmx, target: entry.target, label: entry.label, typed: entry.typed,
    };
    return outbox.remove(entry.id).then(function () { return outbox.add(fresh); })
      .then(render).then(flush);
  }

  function markQueuedRows(pending) {
    pending.forEach(function (entry) {
      if (!entry.target) return;
      var row = document.getElementById(entry.target);
      if (!row) return;
      row.classList.add("queued");
      var status = row.querySelector("[data-status]");
      if (status) status.textContent = words.queued;
    });
  }

  function loadReport() {
    try { return JSON.parse(localStorage.getItem(REPORT) || "null"); } catch (e) { return null; }
  }
  function saveReport(report) {
    try {
      if (report) localStorage.setItem(REPORT, JSON.stringify(report));
      else localStorage.removeItem(REPORT);
    } catch (e) { /* private mode: shown until the page goes */ }
  }
  // A refusal the referee resolved (kept the server's, sent theirs again; here or in another
  // tab) leaves the report: it lists what still waits for them.
  function forgetResolved(refused) {
    var report = loadReport();
    if (!report || !report.refused || !report.refused.length) return;
    var left = report.refused.filter(function (r) {
      return refused.some(function (e) { return r.id ? e.id === r.id : e.label === r.label; });
    });
    if (left.length === report.refused.length) return;
    report.refused = left;
    if (!report.sent.length && !left.length) report = null;
    saveReport(report);
    showReport(report);
  }
  function showReport(report) {
    var place = below.querySelector(".outbox-report");
    place.textContent = "";
    if (!report || (!report.sent.length && !report.refused.length && !report.lost)) {
      place.hidden = true;
      return;
    }
    place.hidden = false;
    var close = el("button", "flash-close", "×");
    close.type = "button";
    close.setAttribute("aria-label", words.close);
    close.addEventListener("click", function () { saveReport(null); showReport(null); });
    if (report.lost) {
      var gone = el("p", "flash error", words.replaced);
      place.appendChild(gone);
      if (report.lostLabels && report.lostLabels.length) {
        var lostList = el("details", "");
        lostList.appendChild(el("summary", "", words.lost));
        var ul0 = el("ul");
        report.lostLabels.forEach(function (label) { ul0.appendChild(el("li", "", label)); });
        lostList.appendChild(ul0);
        place.appendChild(lostList);
      }
      place.appendChild(close);
      return;
    }
    var head = el("p", "flash " + (report.refused.length ? "warning" : "success"),
      say(words.backSent, { sent: report.sent.length, refused: report.refused.length }));
    head.appendChild(close);
    place.appendChild(head);
    var details = el("details", "outbox-sent");
    details.appendChild(el("summary", "", words.sent + " (" + report.sent.length + ")"));
    var ul = el("ul");
    report.sent.forEach(function (label) { ul.appendChild(el("li", "", label)); });
    details.appendChild(ul);
    place.appendChild(details);
    if (report.refused.length) {
      var refusedList = el("ul", "outbox-refused-list");
      report.refused.forEach(function (r) {
        refusedList.appendChild(el("li", "", words.refused + " · " + r.label + ": " + r.why));
      });
      place.appendChild(refusedList);
    }
    if (report.reload) {
      var link = el("a", "", words.reload);
      link.href = location.pathname + location.search;
      link.setAttribute("role", "button");
      link.className = "secondary outbox-reload";
      place.appendChild(link);
    }
  }

  // --- Sending ----------------------------------------------------------------------------
  function swapRow(entry, result) {
    if (!entry.htmx || !entry.target || !window.htmx) return;
    var row = document.getElementById(entry.target);
    if (!row || (result.contentType || "").indexOf("html") < 0) return;
    htmx.swap(row, result.text, { swapStyle: "outerHTML" });
  }

  var flushing = null;
  function flush() {
    if (flushing) return flushing;
    var report = loadReport() || { sent: [], refused: [], reload: false };
    var answered = 0;
    var lost = [];
    flushing = outbox.flush(scope, function (entry, result) {
      answered += 1;
      unreachable = false;
      contact();
      if (result.kind === "saved") {
        report.sent.push(entry.label);
        if (entry.htmx) swapRow(entry, result);
        else report.reload = true;
      } else if (result.kind === "refused") {
        entry.answer = result;
        report.refused.push({ id: entry.id, label: entry.label, why: whyOf(entry) });
      } else if (result.kind === "replaced") {
        lost = result.lost || [];
      }
    }).then(function (outcome) {
      flushing = null;
      if (outcome === "offline") unreachable = true;
      if (outcome === "replaced") return replaced(lost);
      if (answered) {
        saveReport(report);
        showReport(report);
      }
      showState();
      return render().then(function (entries) {
        var waiting = entries.some(function (e) { return e.state === "pending"; });
        // Written while this round was sending: send them too.
        if (outcome === "done" && waiting) return flush();
        return outcome;
      });
    }, function () {
      flushing = null;
      unreachable = true;
      showState();
      return render();
    });
    return flushing;
  }

  function replaced(lost) {
    return outbox.all(scope).then(function (left) {
      return outbox.dropScope(scope).then(function () {
        if (registration && registration.active) {
          registration.active.postMessage({ type: "forget", scope: scope });
        } else if (window.caches) {
          caches.open(outbox.PAGES).then(function (cache) {
            return cache.keys().then(function (requests) {
              requests.forEach(function (request) {
                if (new URL(request.url).pathname.indexOf(scope) === 0) cache.delete(request);
              });
            });
          });
        }
        var report = { sent: [], refused: [], lost: true,
          lostLabels: (lost || []).concat(left.map(function (e) { return e.label; })) };
        saveReport(null);
        showReport(report);
        bar.classList.add("is-replaced");
        return render();
      });
    });
  }

  function enqueue(entry) {
    return outbox.add(entry).then(function (added) {
      if (registration && registration.sync) {
        registration.sync.register(outbox.SYNC_TAG).catch(function () { /* not granted */ });
      }
      return render().then(function () { return added; });
    });
  }

  function mustQueue() { return offline() || pendingCount > 0; }

  // A row of the qualifying table (htmx): its key goes with it; queued when it cannot go
  // now, and after a lost answer (the same key: the server answers its first answer).
  function isWrite(elt) {
    return elt && elt.tagName === "FORM" && (elt.getAttribute("method") || "").toLowerCase() === "post";
  }
  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (!isWrite(elt) || event.detail.verb !== "post") return;
    event.detail.headers["Idempotency-Key"] = outbox.uuid();
  });
  function htmxEntry(detail) {
    var config = detail.requestConfig || detail;
    var elt = detail.elt;
    var data = config.formData || new FormData(elt);
    return {
      scope: scope,
      url: config.path || elt.getAttribute("hx-post"),
      key: config.headers && config.headers["Idempotency-Key"],
      fields: fieldsOf(data),
      headers: { "HX-Request": "true", "HX-Target": elt.id || "" },
      htmx: true,
      target: elt.id || "",
      label: titleOf(elt),
      typed: readable(elt),
    };
  }
  function queuedRow(elt) {
    setTimeout(function () {
      delete elt.dataset.sending;
      elt.classList.remove("failed");
      elt.classList.add("queued");
      var retry = elt.querySelector(".retry");
      if (retry) retry.hidden = true;
      var status = elt.querySelector("[data-status]");
      if (status) status.textContent = words.queued;
      // What is queued is the row's value now: leaving the page does not warn about it.
      Array.prototype.forEach.call(elt.querySelectorAll("input"), function (box) {
        if (box.type === "radio" || box.type === "checkbox") box.defaultChecked = box.checked;
        else box.defaultValue = box.value;
      });
      var button = elt.querySelector("button.save");
      if (button) button.disabled = false;
    }, 0);
  }
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (!isWrite(elt) || !mustQueue()) return;
    event.preventDefault();
    enqueue(htmxEntry(event.detail));
    queuedRow(elt);
  });
  document.addEventListener("htmx:sendError", function (event) {
    var elt = event.detail.elt;
    if (!isWrite(elt)) return;
    unreachable = true;
    showState();
    enqueue(htmxEntry(event.detail));
    queuedRow(elt);
  });

  // A server that fails or is too busy (a 5xx, a 429): kept and sent again later, with its
  // key (a failed first request released it on the server).
  document.addEventListener("htmx:responseError", function (event) {
    var elt = event.detail.elt;
    var status = event.detail.xhr ? event.detail.xhr.status : 0;
    if (!isWrite(elt) || !(status >= 500 || status === 429 || status === 408)) return;
    unreachable = true;
    showState();
    enqueue(htmxEntry(event.detail));
    queuedRow(elt);
  });

  // Every other form a table link posts (stands, configurations, the start, the weather,
  // the result, the sheet's photo): sent by the browser while all is well; kept when it
  // cannot go now.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!isWrite(form) || form.hasAttribute("hx-post")) return;
    // getAttribute: a button named "action" (the result's draft/submit) hides form.action.
    var action = new URL(form.getAttribute("action") || location.href, location.href);
    if (action.origin !== location.origin || action.pathname.indexOf(scope) !== 0) return;
    var submitter = event.submitter || null;
    if (submitter && submitter.name === "system" && offline()) { // "Roll for me"
      event.preventDefault();
      showState();
      return;
    }
    if (!mustQueue()) return;
    event.preventDefault();
    var data = new FormData(form, submitter);
    function keep() {
      return enqueue({
        scope: scope,
        url: action.pathname + action.search,
        fields: fieldsOf(data),
        headers: {},
        htmx: false,
        label: titleOf(form, submitter),
        typed: readable(form),
      }).then(function () {
        var line = bar.querySelector(".offline-since");
        line.hidden = false;
        line.textContent = words.kept;
      });
    }
    // The start's confirmation page needs the server: offline, the page asks it.
    if (form.dataset.offlineConfirmed) {
      askFirst(form, submitter, function () {
        data.set("confirmed", "1");
        keep();
      });
      return;
    }
    keep();
  });

  // A write that asks first (the start), asked in the page under its form: the browser's
  // confirm() stops the page until answered, and a test or a kept page cannot answer it
  // predictably. Nothing goes into the outbox until the referee says yes.
  function askFirst(form, submitter, yes) {
    var open = form.nextElementSibling;
    if (open && open.classList.contains("outbox-ask")) {
      open.querySelector("button").focus();
      return;
    }
    var box = el("div", "outbox-ask");
    box.setAttribute("role", "alertdialog");
    var question = el("p", "", form.dataset.offlineConfirmed);
    question.id = "outbox-ask-" + Date.now();
    box.setAttribute("aria-labelledby", question.id);
    var actions = el("div", "outbox-actions");
    var button = submitter || form.querySelector("button");
    var go = el("button", "", button ? button.textContent.trim() : "OK");
    var cancel = el("button", "secondary outline", words.cancel);
    go.type = cancel.type = "button";
    go.addEventListener("click", function () {
      box.remove();
      yes();
    });
    cancel.addEventListener("click", function () {
      box.remove();
      if (button) button.focus();
    });
    actions.appendChild(go);
    actions.appendChild(cancel);
    box.appendChild(question);
    box.appendChild(actions);
    form.insertAdjacentElement("afterend", box);
    go.focus();
  }

  window.addEventListener("pageshow", function () { render(); });
  showReport(loadReport());
  render().then(function () {
    if (pendingCount > 0) flush();
  });
  // The network may come back without an online event (a Wi-Fi that only lost the server).
  setInterval(function () {
    if (pendingCount > 0) flush();
  }, 4000);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && navigator.onLine) flush();
  });
})();
