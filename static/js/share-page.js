/* A shared page's tools: the Show menu (focus the graph on a category, owner, service or
   topic: the keyboard's way to what a click in the graph does) and Download SVG, both
   following what the graph shows; and the address says it too (?filteredIds=&depth=, read
   by the server), so a reload or the link passed on opens the same view. */
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
  function remember(state) {
    if (!window.history.replaceState) return;
    var params = new URLSearchParams(window.location.search);
    VIEW_KEYS.forEach(function (key) { params.delete(key); });
    query(state).forEach(function (value, key) { params.set(key, value); });
    var search = params.toString() ? "?" + params : "";
    if (search !== window.location.search) {
      window.history.replaceState(window.history.state, "", window.location.pathname + search + window.location.hash);
    }
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
})();
