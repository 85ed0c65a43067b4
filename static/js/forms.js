/* Every page's forms. After a submit the server refused, the cursor goes to the first field
   marked invalid (aria-invalid), so a keyboard or screen-reader user lands on what to fix.
   A form with data-confirm asks before it is sent (revoking a key, removing a member). */
(function () {
  "use strict";
  var invalid = document.querySelector('main [aria-invalid="true"]');
  if (invalid && typeof invalid.focus === "function") {
    invalid.focus();
    if (invalid.scrollIntoView) invalid.scrollIntoView({ block: "center" });
  }
  document.addEventListener("submit", function (event) {
    var question = event.target.getAttribute && event.target.getAttribute("data-confirm");
    if (question && !window.confirm(question)) event.preventDefault();
  }, true);
})();
