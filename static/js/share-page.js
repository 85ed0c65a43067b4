/* A shared page's tools: the Show menu (focus the graph on a category, owner, service or
   topic: the keyboard's way to what a click in the graph does) and Download SVG, both
   following what the graph shows; and the address says it too (?filteredIds=&depth=, read
   by the server), so a reload or the link passed on opens the same view; another focus is
   a new entry in the browser's history, so Back returns to the view before it. */
(function () {
  "use strict";
  var tools = document.querySelector("[data-share-tools]");
  var viewerRoot = document.querySelector("[data-graph-viewer]");
  if (!tools || !viewerRoot) return;
  var select = tools.querySelector("[data-group-filter]");
  var menu = window.ArchsvcFocusMenu(select);
  var download = tools.querySelector("[data-download]");
  var svgUrl = viewerRoot.getAttribute("data-svg-url");
  var VIEW_KEYS = ["filteredIds", "depth"];

  function query(state) {
    var params = new URLSearchParams();
    if (state.focus) {
      params.set("filteredIds", state.focus);
      params.set("depth", String(state.depth));
    }
    return params;
  }
  var settling = true;  // the view the server drew, from the address
  var viewHistory = window.ArchsvcViewHistory(select, viewerRoot);
  function remember(state) {
    // a drawing that could not be shown leaves the address and the history as they are
    if (!window.history.replaceState || state.failed) return;
    var params = new URLSearchParams(window.location.search);
    var another = (params.get("filteredIds") || "") !== (state.focus || "");
    VIEW_KEYS.forEach(function (key) { params.delete(key); });
    query(state).forEach(function (value, key) { params.set(key, value); });
    viewHistory.write(params.toString() ? "?" + params : "", another && !settling);
  }
  function follow(state) {
    menu.show(state);
    var params = query(state).toString();
    download.href = svgUrl + (params ? "?" + params : "");
    remember(state);
  }
  viewerRoot.addEventListener("archsvc:shown", function (event) { follow(event.detail || {}); });
  // what the server drew, which the viewer said before this script listened
  var focus = viewerRoot.getAttribute("data-focus") || "";
  var name = viewerRoot.querySelector("[data-focus-name]");
  follow({ focus: focus, name: focus && name ? name.textContent : "", depth: viewerRoot.getAttribute("data-depth") });
  settling = false;
  // Back and Forward: the graph shows the view of the entry the browser went to (asked even
  // when it is the view shown: another may be on its way). A focus of several ids, as the
  // server reads filteredIds: each well-formed one, in order
  window.addEventListener("popstate", function () {
    var params = new URLSearchParams(window.location.search);
    var wanted = params.getAll("filteredIds").join(",").split(",").map(function (id) {
      return id.trim();
    }).filter(function (id) {
      return /^(service|messaging|category|owner|flow)--[a-z0-9_-]+$/.test(id);
    }).join(",");
    var depth = params.get("depth") || "1";
    if (!/^[0-5]$/.test(depth)) depth = "1";
    viewHistory.went();
    document.dispatchEvent(new CustomEvent("archsvc:view", { detail: { focus: wanted, depth: depth, whole: true } }));
  });
})();
