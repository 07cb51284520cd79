// The desk's drop zone (templates/photos/desk.html): the whole box takes a drop of photos,
// not only the strip of its file input, which stays the fallback (and the way without
// JavaScript). A file dropped beside the box is ignored rather than opened by the browser,
// which would leave the desk.
(function () {
  "use strict";
  var zone = document.getElementById("photo-drop");
  if (!zone) return;
  var input = zone.querySelector("input[type=file]");
  var box = zone.querySelector(".drop-zone") || zone;

  function carriesFiles(event) {
    var types = event.dataTransfer && event.dataTransfer.types;
    return !!types && Array.prototype.indexOf.call(types, "Files") !== -1;
  }

  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (event) {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
      box.classList.add("drop-over");
    });
  });
  zone.addEventListener("dragleave", function (event) {
    if (!zone.contains(event.relatedTarget)) box.classList.remove("drop-over");
  });
  zone.addEventListener("drop", function (event) {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.stopPropagation();
    box.classList.remove("drop-over");
    input.files = event.dataTransfer.files;
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
  ["dragover", "drop"].forEach(function (name) {
    document.addEventListener(name, function (event) {
      if (carriesFiles(event) && !zone.contains(event.target)) event.preventDefault();
    });
  });
})();
