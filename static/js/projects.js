/* Pin and unpin in place: the star toggles through the API without reloading the list. */
(function () {
  "use strict";
  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }
  // says why a star did not move (a spent write budget): posting the form instead, as
  // for any other failure, met the same budget and left the list for a page saying so
  var status = null;
  function say(text) {
    if (!status) {
      status = document.createElement("p");
      status.className = "notice";
      status.setAttribute("role", "status");
      var list = document.querySelector(".project-list");
      list.parentNode.insertBefore(status, list);
    }
    status.textContent = text;
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
        if (response.status === 429) {
          var wait = response.headers.get("Retry-After");
          say("Too many changes for now: nothing was pinned or unpinned. Try again in " +
            (wait ? wait + (wait === "1" ? " second." : " seconds.") : "a minute."));
          return;
        }
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
