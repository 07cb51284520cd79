// The outbox of a referee's table, kept on the phone (IndexedDB through idb-keyval): the
// part shared by the page (outbox.js) and the service worker (sw.js, Background Sync), with
// no DOM. One entry per write, in the order made, each with its own Idempotency-Key and the
// version it was based on; one outbox per table link (a phone shared by two referees keeps
// two). An entry leaves the outbox only once the server answered it: saved, or refused
// (kept, with the server's answer, until the referee resolves it).
(function (root) {
  "use strict";

  var kv = root.idbKeyval;
  var store = kv.createStore("paddock-outbox", "entries");
  var counter = 0;

  // A UUID v4 from getRandomValues: randomUUID needs a secure origin, a venue's plain HTTP
  // page has none.
  function uuid() {
    var b = new Uint8Array(16);
    root.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  function all(scope) {
    return kv.entries(store).then(function (pairs) {
      var found = pairs.map(function (p) { return p[1]; }).filter(function (e) {
        return !scope || e.scope === scope;
      });
      found.sort(function (a, b) { return a.id < b.id ? -1 : a.id > b.id ? 1 : 0; });
      return found;
    });
  }

  function add(entry) {
    counter += 1;
    entry.id = entry.scope + "|" + String(Date.now()).padStart(15, "0") + "-" +
      String(counter).padStart(6, "0");
    entry.key = entry.key || uuid();
    entry.state = "pending";
    entry.at = entry.at || Date.now();
    var version = (entry.fields || []).find(function (f) { return f[0] === "version"; });
    entry.version = version ? String(version[1]) : null;
    return kv.set(entry.id, entry, store).then(function () { return entry; });
  }

  function put(entry) { return kv.set(entry.id, entry, store); }
  function remove(id) { return kv.del(id, store); }

  function dropScope(scope) {
    return all(scope).then(function (entries) {
      return kv.delMany(entries.map(function (e) { return e.id; }), store);
    });
  }

  function body(entry) {
    var files = (entry.fields || []).some(function (f) { return f[1] && typeof f[1] === "object"; });
    if (!files) {
      var params = new URLSearchParams();
      entry.fields.forEach(function (f) { params.append(f[0], f[1]); });
      return params;
    }
    var data = new FormData();
    entry.fields.forEach(function (f) {
      if (f[1] && typeof f[1] === "object") data.append(f[0], f[1].blob, f[1].name);
      else data.append(f[0], f[1]);
    });
    return data;
  }

  // Send one entry. Answers {kind: "saved" | "refused" | "retry" | "replaced", ...}.
  function send(entry) {
    var headers = Object.assign({}, entry.headers || {}, {
      "Idempotency-Key": entry.key,
      "X-Paddock-Outbox": "1",
    });
    return root.fetch(entry.url, {
      method: "POST",
      body: body(entry),
      headers: headers,
      credentials: "same-origin",
      redirect: "manual",
      cache: "no-store",
    }).then(function (response) {
      var status = response.status;
      var type = response.headers.get("Content-Type") || "";
      if (response.type === "opaqueredirect") return { kind: "saved", status: 302, text: "" };
      return response.text().then(function (text) {
        var answer = { status: status, contentType: type, text: text };
        if (status === 410 || status === 401) return Object.assign(answer, { kind: "replaced" });
        var json = null;
        if (type.indexOf("json") >= 0) {
          try { json = JSON.parse(text); } catch (e) { json = null; }
        }
        if (json && json.outcome) {
          answer.messages = json.messages || [];
          answer.location = json.location || "";
          return Object.assign(answer, { kind: json.outcome === "saved" ? "saved" : "refused" });
        }
        // Still running (its first send), the server failing or too busy: later.
        if ((status === 409 && json) || status >= 500 || status === 429 || status === 408) {
          return Object.assign(answer, { kind: "retry" });
        }
        if (entry.htmx) {
          var saved = status === 200 && /class="run-row saved/.test(text);
          return Object.assign(answer, { kind: saved ? "saved" : "refused" });
        }
        return Object.assign(answer, { kind: status < 400 ? "saved" : "refused" });
      });
    }, function () {
      return { kind: "retry", status: 0, text: "" };
    });
  }

  // Send a link's pending entries (every link's when scope is null), in order, one at a
  // time; refused ones stay and the next ones go on. Stops at the first that cannot reach
  // the server. onEach(entry, result) is told of every answer. Answers "done", "offline" or
  // "replaced" (the link's outbox is then deleted).
  function flushNow(scope, onEach) {
    return all(scope).then(function (entries) {
      var pending = entries.filter(function (e) { return e.state === "pending"; });
      var replaced = {};
      function next(i) {
        if (i >= pending.length) return "done";
        var entry = pending[i];
        if (replaced[entry.scope]) return next(i + 1);
        return send(entry).then(function (result) {
          if (result.kind === "retry") return "offline";
          var done;
          if (result.kind === "replaced") {
            replaced[entry.scope] = true;
            done = all(entry.scope).then(function (gone) {
              result.lost = gone.map(function (e) { return e.label; });
              return dropScope(entry.scope);
            });
          } else if (result.kind === "saved") {
            done = remove(entry.id);
          } else {
            entry.state = "refused";
            entry.answer = result;
            done = put(entry);
          }
          return done.then(function () {
            if (onEach) onEach(entry, result);
            return next(i + 1);
          });
        });
      }
      return Promise.resolve(next(0)).then(function (outcome) {
        if (outcome === "done" && Object.keys(replaced).length) return "replaced";
        return outcome;
      });
    });
  }

  // One sender at a time across the page's tabs and the service worker (Web Locks, where
  // the browser has them: secure origins); else one per page.
  var busy = null;
  function flush(scope, onEach) {
    if (root.navigator && root.navigator.locks) {
      return root.navigator.locks.request("paddock-outbox", function () {
        return flushNow(scope, onEach);
      });
    }
    if (busy) return busy;
    busy = flushNow(scope, onEach).then(function (outcome) {
      busy = null;
      return outcome;
    }, function (error) {
      busy = null;
      throw error;
    });
    return busy;
  }

  root.PaddockOutbox = {
    uuid: uuid,
    all: all,
    add: add,
    put: put,
    remove: remove,
    dropScope: dropScope,
    send: send,
    flush: flush,
    SYNC_TAG: "paddock-outbox",
    PAGES: "paddock-pages",
  };
})(self);
