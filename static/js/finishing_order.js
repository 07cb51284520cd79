// The referee's page of a finishing-order table: tapping the drivers in crossing order
// fills their place boxes (the form posts the boxes, so the page works without this file
// and the tables' outbox keeps the same fields offline); a retirement's lap and note show
// for a retired driver only (hidden, they are not sent and stay as typed).
(function () {
  "use strict";
  var form = document.getElementById("finishing-order");
  var tap = document.getElementById("tap-order");
  if (!form) return;

  function card(number) { return document.getElementById("driver-" + number); }
  function placeBox(number) { return form.elements["place-" + number]; }
  function outBox(number) { return form.elements["out-" + number]; }
  function numbers() {
    return Array.prototype.map.call(form.querySelectorAll(".fo-driver"), function (f) {
      return f.dataset.driver;
    });
  }
  function placeOf(number) {
    var value = parseInt(placeBox(number).value, 10);
    return isNaN(value) ? 0 : value;
  }

  function showRetired(number) {
    var retired = outBox(number).value === "retired";
    var fields = card(number).querySelector(".fo-retired");
    fields.hidden = !retired;
    fields.querySelectorAll("input").forEach(function (input) { input.disabled = !retired; });
  }

  function paint() {
    if (!tap) return;
    tap.querySelectorAll(".fo-tap-driver").forEach(function (button) {
      var place = placeOf(button.dataset.driver);
      button.setAttribute("aria-pressed", place > 0 ? "true" : "false");
      button.querySelector(".fo-tap-place").textContent = place > 0 ? place : "";
    });
  }

  function takeOut(number) {
    var place = placeOf(number);
    if (!place) return;
    placeBox(number).value = "";
    numbers().forEach(function (other) {
      var p = placeOf(other);
      if (p > place) placeBox(other).value = p - 1;
    });
  }

  if (tap) {
    tap.hidden = false;
    tap.addEventListener("click", function (event) {
      var button = event.target.closest(".fo-tap-driver");
      if (button) {
        var number = button.dataset.driver;
        if (placeOf(number)) {
          takeOut(number);
        } else {
          var next = Math.max.apply(null, [0].concat(numbers().map(placeOf))) + 1;
          placeBox(number).value = next;
          outBox(number).value = "";
          showRetired(number);
        }
        paint();
      } else if (event.target.closest(".fo-tap-clear")) {
        numbers().forEach(function (n) { placeBox(n).value = ""; });
        paint();
      }
    });
  }
  form.addEventListener("change", function (event) {
    var box = event.target.closest(".fo-out");
    var set = event.target.closest(".fo-driver");
    if (box && set) {
      if (box.value) takeOut(set.dataset.driver);
      showRetired(set.dataset.driver);
    }
    paint();
  });
  numbers().forEach(showRetired);
  paint();
})();
