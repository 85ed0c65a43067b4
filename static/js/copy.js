/* Copy buttons: <button data-copy="element-id"> copies that field's text. The button says
   how it went for a moment ("Copied", "Copy failed"), and so does a live region, which a
   screen reader reads (a focused button's new text often is not). */
(function () {
  "use strict";
  var live = document.createElement("p");
  live.className = "visually-hidden";
  live.setAttribute("aria-live", "polite");
  live.setAttribute("data-copy-said", "");
  document.body.appendChild(live);

  document.querySelectorAll("[data-copy]").forEach(function (button) {
    var label = button.textContent;  // its own words, whatever is pressed meanwhile
    // its name stays "Copy…" while its text says how it went: the live region says that,
    // once (a focused button's new name could be read as well)
    if (!button.hasAttribute("aria-label")) button.setAttribute("aria-label", label);
    var timer, message;
    function say(text, spoken) {
      button.textContent = text;
      message = spoken || text;
      live.textContent = "";
      // the same twice is said twice
      setTimeout(function () { live.textContent = message; }, 50);
      clearTimeout(timer);
      timer = setTimeout(function () {
        button.textContent = label;
        if (live.textContent === message) live.textContent = "";  // not another button's
      }, 1500);
    }
    button.addEventListener("click", function () {
      var field = document.getElementById(button.getAttribute("data-copy"));
      var failed = function () {
        field.focus();
        field.select();
        say("Copy failed", "Copy failed: the text is selected, copy it from there");
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(function () { say("Copied"); }, failed);
        return;
      }
      field.select();
      var copied = false;
      try { copied = document.execCommand("copy"); } catch (refused) { copied = false; }
      if (copied) say("Copied"); else failed();
    });
  });
})();
