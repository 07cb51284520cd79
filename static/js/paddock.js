// After a run row comes back from the server, move the keyboard on: to the next driver's
// first field when it was saved, to the first wrong field when it was refused. A referee
// fills a whole table without touching the mouse.
document.addEventListener("htmx:afterSettle", function () {
  var row = document.querySelector(".run-row[data-focus]");
  if (!row) return;
  var where = row.getAttribute("data-focus");
  row.removeAttribute("data-focus");
  var target = null;
  if (where === "next") {
    var next = row.nextElementSibling;
    while (next && !(next.classList && next.classList.contains("run-row"))) next = next.nextElementSibling;
    target = next && next.querySelector("select, input:not([type=hidden])");
  } else {
    target = row.querySelector("[aria-invalid='true']") || row.querySelector("select, input:not([type=hidden])");
  }
  if (target) target.focus();
});
