/* Every page's forms. After a submit the server refused, the cursor goes to the first field
   marked invalid (aria-invalid), so a keyboard or screen-reader user lands on what to fix.
   A field with data-focus-select (a key shown once) gets the cursor with its text selected.
   Else the page's notice of what an action did (data-action-result) gets the focus.
   A form with data-confirm asks before it is sent (revoking a key, removing a member).
   A page that answers a form at an address that also answers GET (data-reload-as-get: a new
   API key, a member added) is reloaded as that GET, not by sending the form again, which
   said "an active API key with this name exists" and lost the key just shown.
   The settings pages' tabs, one row that scrolls sideways on a phone, show the page's own. */
(function () {
  "use strict";
  if (document.body.hasAttribute("data-reload-as-get") && window.history.replaceState) {
    window.history.replaceState(window.history.state, "", window.location.href);
  }
  var invalid = document.querySelector('main [aria-invalid="true"]');
  if (invalid && typeof invalid.focus === "function") {
    invalid.focus();
    if (invalid.scrollIntoView) invalid.scrollIntoView({ block: "center" });
    try {  // the caret after what was typed, where a correction usually goes
      var end = invalid.value.length;
      invalid.setSelectionRange(end, end);
    } catch (notText) { /* e-mail and number fields have no caret to place */ }
  } else {
    // a value to take away at once (a new API key): focused and selected, ready to copy
    var ready = document.querySelector("main [data-focus-select]");
    if (ready) { ready.focus(); ready.select(); } else {
      // what a full-page action did ("Saved", "The key is revoked", a refusal with no field
      // to fix): focused, so a screen reader reads it and Tab goes on from there; a status
      // already in the page when it loads is not announced by being there
      var result = document.querySelector("main [data-action-result]");
      // a page that puts the cursor in a field of its own (log in again after logging
      // out) keeps it there; its notice is the first thing above that field
      if (result && !document.querySelector("main [autofocus]")) {
        result.setAttribute("tabindex", "-1");
        result.focus();
      }
    }
  }
  // a row of tabs that scrolls sideways on a phone (the settings pages): the page's own
  // tab is brought into the row's view, without moving the page
  var current = document.querySelector('.settings-nav [aria-current="page"]');
  if (current) {
    var row = current.parentNode;
    var past = current.getBoundingClientRect().right - row.getBoundingClientRect().right;
    if (past > -40) row.scrollLeft += past + 48; // clear of the edge's fade
    // the row fades out at an edge that has more tabs past it ("Your account" was cut at
    // "Your" with nothing saying the row scrolls)
    var edges = function () {
      var end = row.scrollWidth - row.clientWidth;
      row.toggleAttribute("data-more-before", row.scrollLeft > 1);
      row.toggleAttribute("data-more-after", row.scrollLeft < end - 1);
    };
    edges();
    // a tab reached by Tab comes clear of the fade (it stayed under it, cut at "You")
    row.addEventListener("focusin", function (event) {
      var box = event.target.getBoundingClientRect(), frame = row.getBoundingClientRect();
      if (box.right > frame.right - 40) row.scrollLeft += box.right - frame.right + 48;
      else if (box.left < frame.left + 40) row.scrollLeft -= frame.left - box.left + 48;
    });
    row.addEventListener("scroll", edges, { passive: true });
    window.addEventListener("resize", edges);
  }
  // Download SVG (the project page, a shared page) is fetched first, so a refusal is said
  // on the page: a link replaced meanwhile, or a session that ended, was a failed download
  // (or the API's error saved as the .svg)
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-download]");
    if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey ||
        event.ctrlKey || event.shiftKey || event.altKey || !window.fetch || !window.URL) return;
    event.preventDefault();
    var status = document.querySelector("[data-graph-viewer] [data-status]");
    fetch(link.href, { credentials: "same-origin" }).then(function (response) {
      var type = response.headers.get("Content-Type") || "";
      if (response.ok && type.indexOf("image/svg+xml") === 0) return response.blob();
      return response.text().then(function (text) {
        var message = text;
        try { message = JSON.parse(text).message || text; } catch (ignored) { /* plain text */ }
        if (response.status === 401) message = "Your session ended: log in again to download the graph.";
        throw new Error(response.ok || !message ? "The graph could not be downloaded: try again." : message);
      });
    }).then(function (blob) {
      var url = URL.createObjectURL(blob), save = document.createElement("a");
      save.href = url;
      save.download = link.getAttribute("download") || "graph.svg";
      document.body.appendChild(save);
      save.click();
      save.remove();
      setTimeout(function () { URL.revokeObjectURL(url); }, 10000);
    }).catch(function (error) {
      var said = error && error.message && error.message !== "Failed to fetch"
        ? error.message : "The graph could not be downloaded: try again.";
      if (status) status.textContent = said; else window.alert(said);
    });
  });
  document.addEventListener("submit", function (event) {
    var question = event.target.getAttribute && event.target.getAttribute("data-confirm");
    // asked only for one choice of the form's (`data-confirm-when="role=admin"`)
    var when = question && event.target.getAttribute("data-confirm-when");
    if (when) {
      var field = event.target.elements[when.split("=")[0]];
      if (!field || field.value !== when.slice(when.indexOf("=") + 1)) question = null;
    }
    if (question && !window.confirm(question)) event.preventDefault();
    // logging out forgets the conversations this tab kept (chat.js)
    var action = event.target.getAttribute && event.target.getAttribute("action");
    if (!event.defaultPrevented && action === "/accounts/logout/") {
      try {
        Object.keys(window.sessionStorage).forEach(function (key) {
          if (key.indexOf("archsvc:chat:") === 0) window.sessionStorage.removeItem(key);
        });
      } catch (unavailable) { /* nothing kept */ }
    }
  }, true);
})();
