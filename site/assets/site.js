// servelab site: send a reader of the root page to their language, and
// put a copy button beside every serving command. Everything here is
// optional: without JavaScript the pages read the same.
(function () {
  var root = document.documentElement;
  if (root.hasAttribute("data-language-chooser")) {
    var have = ["en", "zh", "ru"];
    var langs = navigator.languages || [navigator.language || "en"];
    for (var i = 0; i < langs.length; i++) {
      var l = String(langs[i]).toLowerCase().split("-")[0];
      if (have.indexOf(l) >= 0) { window.location.replace(l + "/index.html"); return; }
    }
    return;
  }
  var label = root.getAttribute("data-copy") || "Copy";
  var done = root.getAttribute("data-copied") || "Copied";
  document.querySelectorAll("pre > code.language-bash").forEach(function (code) {
    var pre = code.parentNode;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = label;
    button.addEventListener("click", function () {
      if (!navigator.clipboard) { return; }
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = done;
        setTimeout(function () { button.textContent = label; }, 1500);
      });
    });
    pre.parentNode.insertBefore(button, pre);
  });
})();
