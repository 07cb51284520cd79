// The circuit form's d20 bar (templates/clubs/season_circuit_form.html) follows the six
// number inputs as they are typed: each face in its weather's colour, a face in no range
// or in two shown as such. Without this script the bar is the server's, drawn at each
// submission; the refusal in words is always the server's.
(function () {
  "use strict";
  var WEATHERS = ["rain", "variable", "sun"];

  function number(form, name) {
    var input = form.querySelector('[name="' + name + '"]');
    var value = input ? input.value.trim() : "";
    return /^[0-9]{1,2}$/.test(value) ? parseInt(value, 10) : null;
  }

  function draw(form) {
    var ranges = WEATHERS.map(function (weather) {
      return [weather, number(form, weather + "_from"), number(form, weather + "_to")];
    });
    form.querySelectorAll("[data-d20-bar] [data-face]").forEach(function (cell) {
      var face = parseInt(cell.getAttribute("data-face"), 10);
      var covering = ranges.filter(function (range) {
        return range[1] !== null && range[2] !== null && range[1] <= face && face <= range[2];
      });
      var kind = covering.length === 1 ? covering[0][0] : covering.length ? "overlap" : "hole";
      cell.className = "d20-face weather-" + kind;
    });
  }

  document.querySelectorAll("[data-weather-form]").forEach(function (form) {
    form.addEventListener("input", function () { draw(form); });
    draw(form);
  });
})();
