// The event form shows the chosen game's fields only (the server ignores the others), the
// quick rules' standard car only in d20-draw mode, and the slug the name will give.
(function () {
  var form = document.querySelector("form.event-form");
  if (!form) return;
  var game = form.querySelector("select[name=game]");
  var mode = form.querySelector("select[name=qualifying_mode]");
  var name = form.querySelector("input[name=name]");
  var slug = form.querySelector("input[name=slug]");

  function update() {
    var chosen = game ? game.value : "";
    form.querySelectorAll(".field[data-games]").forEach(function (field) {
      var games = field.getAttribute("data-games");
      var shown = !games || !chosen || games.split(" ").indexOf(chosen) >= 0;
      var input = field.querySelector("[name]");
      if (shown && input && input.name.indexOf("standard_") === 0) {
        shown = !mode || mode.value === "draw";
      }
      field.hidden = !shown;
    });
  }

  function slugify(text) {
    // An apostrophe separates words, as on the server: "d'automne" is "d-automne".
    return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
      .replace(/['\u2019\u02bc]/g, " ").replace(/[^a-z0-9\s-]/g, "").trim().replace(/[\s-]+/g, "-").slice(0, 50);
  }

  if (game) game.addEventListener("change", update);
  if (mode) mode.addEventListener("change", update);
  if (name && slug) {
    name.addEventListener("input", function () { slug.placeholder = slugify(name.value); });
    slug.placeholder = slugify(name.value);
  }
  update();
})();
