// Paddock: behaviour shared by every page. Each page's own file lives beside this one
// (runs.js: qualifying run entry; results.js: race results), loaded by its template.

// A message closes when tapped (its × button).
document.addEventListener("click", function (event) {
  var close = event.target.closest && event.target.closest(".flash-close");
  if (close) close.parentNode.remove();
});

// The page's messages stand in its flow, beside what they are about, never over it (a
// fixed bar hid the heading of the check-in, the top of the qualifying cards, the name of
// the driver whose configuration was refused): the address's section gets them after its
// heading, any other target just before it. A message the page also says in place (a row's
// "Saved.", the referee's name in its label) goes by itself after a while.
(function () {
  var box = document.getElementById("messages");
  if (!box) return;
  var id = decodeURIComponent(location.hash.slice(1));
  var target = id && document.getElementById(id);
  if (target && !box.contains(target)) {
    var heading = target.matches("section, details")
      && target.querySelector(":scope > h2, :scope > h3, :scope > hgroup, :scope > summary");
    var before = target.closest("table") ? target.closest(".table-wrap, table") : target;
    if (heading) heading.after(box); else before.before(box);
    box.classList.add("beside");
    // The browser's own jump to the address's target comes later: the message, just
    // above the target, is what the page then starts with.
    var show = function () { box.scrollIntoView({ block: "start" }); };
    show();
    window.addEventListener("load", function () { requestAnimationFrame(show); });
  }
  var said = (document.querySelector("main") || document.body).cloneNode(true);
  var copy = said.querySelector("#messages");
  if (copy) copy.remove();
  var text = said.textContent.replace(/\s+/g, " ");
  box.querySelectorAll(".flash").forEach(function (flash) {
    var words = flash.firstChild && flash.firstChild.textContent.replace(/\s+/g, " ").trim();
    if (words && text.indexOf(words) !== -1) {
      flash.classList.add("said-in-place");
      setTimeout(function () { flash.remove(); }, 4000);
    }
  });
})();

// Phone tables show their priority columns; "All columns" shows the others (sideways).
document.addEventListener("click", function (event) {
  var toggle = event.target.closest && event.target.closest(".columns-toggle");
  if (!toggle) return;
  var wrap = document.getElementById(toggle.getAttribute("aria-controls"));
  if (!wrap) return;
  var all = wrap.classList.toggle("all-columns");
  toggle.setAttribute("aria-expanded", all ? "true" : "false");
});

// A block that refreshes itself (hx-trigger="every 5s") waits while the keyboard is inside
// it: the swap would take the focus from the button or link being used. An htmx trigger
// filter ("[...]") would say this too, but htmx evaluates those as code, which the policy
// forbids (allowEval is off in the htmx-config meta tag).
(function () {
  function holdsTheFocus(block) {
    return Boolean(block && block.hasAttribute && block.hasAttribute("data-hold-while-focused") &&
                   block.contains(document.activeElement));
  }
  document.addEventListener("htmx:confirm", function (event) {
    if (holdsTheFocus(event.target)) event.preventDefault();
  });
  // A refresh already sent when the keyboard came in: its answer is dropped, not swapped (the
  // next refresh after the keyboard has left brings the block up to date).
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (holdsTheFocus(event.detail.target)) event.detail.shouldSwap = false;
  });
})();

// A running total (the car configuration's 22): an <output data-sum-of="selector"
// data-expected="22" data-label="Total"> adds the numbers of the boxes the selector names
// while they are typed in. The server writes the same total on the page, so without this
// file the page still says it after each save or refusal.
document.addEventListener("input", function (event) {
  var form = event.target.form;
  if (!form) return;
  Array.prototype.forEach.call(form.querySelectorAll("output[data-sum-of]"), function (out) {
    var total = 0, any = false;
    Array.prototype.forEach.call(document.querySelectorAll(out.dataset.sumOf), function (box) {
      if (/^\d+$/.test(box.value.trim())) { total += parseInt(box.value, 10); any = true; }
    });
    var expected = parseInt(out.dataset.expected, 10);
    out.textContent = out.dataset.label + " " + (any ? total : "–") + " / " + expected;
    out.classList.toggle("sum-ok", any && total === expected);
    out.classList.toggle("sum-off", any && total !== expected);
  });
});
