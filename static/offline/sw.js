// Paddock's service worker (secure origins only: HTTPS, localhost, 127.0.0.1), served at
// /sw.js after its settings (self.PADDOCK: version, the static files to keep, the scripts).
// Written by hand: it does three things and stays short.
// - Static files: kept at install, answered from the cache first.
// - Pages: a table link's pages and the players' pages, network first; the server marks
//   those a phone may keep (header "Paddock-Offline": never an organiser's page, the admin
//   or anything behind a login), and their last copy answers when the network does not,
//   marked as a copy (data-offline-copy="1") so the page says since when it is offline.
// - Background Sync: sends the tables' outboxes (outbox-core.js) when the network is back.
// A new version takes over at once; the outboxes live in IndexedDB and are never touched
// by an update; the old static files' cache goes, the kept pages stay.
/* global PADDOCK, PaddockOutbox */
"use strict";

importScripts.apply(self, PADDOCK.scripts);

var STATIC = "paddock-static-" + PADDOCK.version;
var PAGES = PaddockOutbox.PAGES;
var TABLE = /^\/(?:q|r)\/[^/]+\//;
var KEEP_PAGES = 40;

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(STATIC).then(function (cache) { return cache.addAll(PADDOCK.precache); })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name.indexOf("paddock-static-") === 0 && name !== STATIC;
      }).map(function (name) { return caches.delete(name); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function scopeOf(path) {
  var found = TABLE.exec(path);
  return found ? found[0] : "";
}

// Forget a replaced link: its kept pages and its outbox.
function forget(scope) {
  return caches.open(PAGES).then(function (cache) {
    return cache.keys().then(function (requests) {
      return Promise.all(requests.filter(function (request) {
        return new URL(request.url).pathname.indexOf(scope) === 0;
      }).map(function (request) { return cache.delete(request); }));
    });
  }).then(function () { return PaddockOutbox.dropScope(scope); });
}

function keep(request, response) {
  return caches.open(PAGES).then(function (cache) {
    return cache.put(request, response).then(function () { return cache.keys(); })
      .then(function (requests) {
        // The oldest kept pages go first (a phone keeps a few tables and players' pages).
        var extra = requests.length - KEEP_PAGES;
        return Promise.all(requests.slice(0, Math.max(0, extra)).map(function (r) {
          return cache.delete(r);
        }));
      });
  });
}

function copyOf(request) {
  return caches.open(PAGES).then(function (cache) { return cache.match(request); })
    .then(function (kept) {
      if (!kept) return Response.error();
      return kept.text().then(function (html) {
        return new Response(html.replace('data-offline-copy="0"', 'data-offline-copy="1"'), {
          status: 200,
          headers: { "Content-Type": kept.headers.get("Content-Type") || "text/html" },
        });
      });
    });
}

function page(request) {
  var path = new URL(request.url).pathname;
  return fetch(request).then(function (response) {
    if (response.status === 410 && scopeOf(path)) {
      return forget(scopeOf(path)).then(function () { return response; });
    }
    if (response.ok && response.headers.get("Paddock-Offline") && !response.redirected) {
      var copy = response.clone();
      return keep(request, copy).then(function () { return response; }, function () { return response; });
    }
    return response;
  }, function () {
    return copyOf(request);
  });
}

function staticFile(request) {
  return caches.match(request).then(function (found) {
    return found || fetch(request).then(function (response) {
      if (response.ok) {
        var copy = response.clone();
        caches.open(STATIC).then(function (cache) { cache.put(request, copy); });
      }
      return response;
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(staticFile(request));
  } else if (request.mode === "navigate") {
    event.respondWith(page(request));
  }
});

function tellPages(message) {
  return self.clients.matchAll({ type: "window" }).then(function (clients) {
    clients.forEach(function (client) { client.postMessage(message); });
  });
}

// Background Sync: a table's page that is open sends its own outbox (and says what it
// sent); with none open, the worker sends every link's outbox itself.
self.addEventListener("sync", function (event) {
  if (event.tag !== PaddockOutbox.SYNC_TAG) return;
  event.waitUntil(
    self.clients.matchAll({ type: "window" }).then(function (clients) {
      var tables = clients.filter(function (c) { return scopeOf(new URL(c.url).pathname); });
      if (tables.length) return tellPages({ type: "outbox-flush" });
      return PaddockOutbox.flush(null, function (entry, result) {
        if (result.kind === "replaced") forget(entry.scope);
      }).then(function (outcome) {
        // Not reached yet: the browser tries the sync again later.
        if (outcome === "offline") throw new Error("offline");
      });
    })
  );
});

self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "forget" && data.scope) event.waitUntil(forget(data.scope));
});
