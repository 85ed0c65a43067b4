/* The Show menu (a select of things to focus the graph on), shared by the project page and
   a shared page: choosing an option focuses the graph on it, and the menu says what the
   graph is focused on however it was chosen (a click in the graph, the chat, a table),
   naming a focus it does not list in an option of its own. */
window.ArchsvcFocusMenu = function (select) {
  "use strict";
  var KINDS = { service: "service", messaging: "topic" };
  // Arrow keys on the closed menu choose each option they pass: the graph is focused once
  // they rest (it was redrawn, and the view said aloud, at every option passed: some 22
  // for the last option of the demo's menu). A choice by pointer, or Enter, is at once.
  // The option waiting is kept apart from the menu's value, which a drawing that arrives
  // meanwhile sets to what it shows (`show`, skipped while one waits).
  var KEY_SETTLE_MS = 450, keyed = 0, pending = null, waiting = null;
  function choose(option) {
    clearTimeout(pending);
    pending = waiting = null;
    // the option says its kind too, "payments (flow)": a category and a flow may share a name
    var id = option ? option.value : "";
    var name = id ? option.getAttribute("data-name") : "";
    document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { id: id, name: name, clear: !id } }));
  }
  select.addEventListener("keydown", function (event) {
    keyed = /^(Arrow|Page|Home|End)/.test(event.key) || event.key.length === 1 ? Date.now() : 0;
  });
  select.addEventListener("change", function () {
    var option = select.selectedOptions[0] || null;
    clearTimeout(pending);
    if (Date.now() - keyed < 200) {
      waiting = option;
      pending = setTimeout(function () { choose(option); }, KEY_SETTLE_MS);
    } else {
      choose(option);
    }
  });
  select.addEventListener("blur", function () {  // leaving the menu chooses what it shows
    if (pending) choose(waiting);
  });
  // Back or Forward is another view: an option still waiting is dropped, not pushed over it
  window.addEventListener("popstate", function () {
    clearTimeout(pending);
    pending = waiting = null;
  });
  return {
    // `state`: what the graph shows (archsvc:shown's detail: focus, name)
    show: function (state) {
      if (pending) return;  // a choice waits: the menu keeps it (the drawing follows it)
      var other = select.querySelector("option[data-shown-focus]");
      var known = state.focus && Array.prototype.some.call(select.options, function (option) {
        return option.value === state.focus && !option.hasAttribute("data-shown-focus");
      });
      if (state.focus && !known) {  // focused from elsewhere: named here too
        if (!other) {
          other = document.createElement("option");
          other.setAttribute("data-shown-focus", "");
          select.options[0].after(other);
        }
        other.value = state.focus;
        other.setAttribute("data-name", state.name);
        var kind = state.focus.split("--")[0];
        other.textContent = state.name + " (" + (KINDS[kind] || kind) + ")";
      } else if (other) {
        other.remove();
      }
      select.value = state.focus || "";
    }
  };
};

/* The address of a page's view (the project page's ?focus=&depth=&at=, a shared page's
   ?filteredIds=&depth=), shared by both pages: `write(search, another)` makes `search` the
   address, a new entry of the browser's history when the view is `another` subject, else
   the entry shown rewritten; the keyboard going down the Show menu (`select`: each option a
   view) adds one entry, not one an option: a choice there within a second of the last
   entry pushed from it takes that entry's place. `went()`, on Back and Forward: the browser
   brings back, after the event, where the page was scrolled when the entry was left (under
   the graph, at a table's name): the change is the graph's, so it is brought into view. */
window.ArchsvcViewHistory = function (select, viewerRoot) {
  "use strict";
  var PUSH_APART = 1000, pushed = 0, pushedFromMenu = false;
  return {
    write: function (search, another) {
      if (search === window.location.search) return;
      var address = window.location.pathname + search + window.location.hash;
      var fromMenu = !!select && document.activeElement === select;
      if (another && !(fromMenu && pushedFromMenu && Date.now() - pushed < PUSH_APART)) {
        window.history.pushState(null, "", address);
        pushed = Date.now();
        pushedFromMenu = fromMenu;
      } else {
        window.history.replaceState(window.history.state, "", address);
      }
    },
    went: function () {
      pushed = 0;
      window.requestAnimationFrame(function () {
        var box = viewerRoot.getBoundingClientRect();
        var seen = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
        if (seen < Math.min(box.height, window.innerHeight) / 2) viewerRoot.scrollIntoView({ block: "start" });
      });
    }
  };
};
