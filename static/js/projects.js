/* Pin and unpin in place: the star toggles through the API without reloading the list. */
(function () {
  "use strict";
  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  document.querySelectorAll("form[data-pin]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = form.getAttribute("data-project");
      var pinned = form.getAttribute("data-pinned") === "true";
      var request = pinned
        ? fetch("/v1/pinned/" + encodeURIComponent(id), {
            method: "DELETE", credentials: "same-origin", headers: { "X-CSRFToken": csrf() } })
        : fetch("/v1/pinned", {
            method: "POST", credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
            body: JSON.stringify({ projectId: id }) });
      request.then(function (response) {
        if (!response.ok && response.status !== 404) { form.submit(); return; }
        pinned = !pinned;
        form.setAttribute("data-pinned", String(pinned));
        var button = form.querySelector("button");
        button.classList.toggle("on", pinned);
        button.setAttribute("aria-pressed", String(pinned));
        button.title = pinned ? "Unpin" : "Pin";
        button.textContent = pinned ? "\u2605" : "\u2606";  // ★ filled, ☆ not: not by colour alone
        form.action = form.action.replace(/\/(pin|unpin)\/$/, pinned ? "/unpin/" : "/pin/");
      });
    });
  });
})();
