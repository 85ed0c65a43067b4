/* The project page's tools around the graph: focus on a category, owner or flow; move
   back through the history (the graph is redrawn as it was, and the services changed since
   are outlined); download the SVG as shown; copy the Mermaid text. */
(function () {
  "use strict";
  var tools = document.querySelector("[data-project-tools]");
  if (!tools) return;
  var project = tools.getAttribute("data-project");
  var viewerRoot = document.querySelector("[data-graph-viewer]");
  var timeline = JSON.parse(document.getElementById("timeline-data").textContent);  // newest first

  function focus(id) {
    document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { id: id } }));
  }

  var group = tools.querySelector("[data-group-filter]");
  if (group) group.addEventListener("change", function () {
    document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { id: group.value, clear: !group.value } }));
  });
  document.querySelectorAll("[data-focus-id]").forEach(function (button) {
    button.addEventListener("click", function () {
      focus(button.getAttribute("data-focus-id"));
      viewerRoot.scrollIntoView({ behavior: "smooth", block: "start" });
    });
  });

  var slider = tools.querySelector("[data-timeline]");
  var label = tools.querySelector("[data-timeline-label]");
  var at = viewerRoot.querySelector("[data-at]");
  function markChanges() {
    var svg = viewerRoot.querySelector(".graph-stage svg");
    if (!svg || !slider) return;
    var index = Number(slider.value), count = timeline.length;
    svg.querySelectorAll(".changed-since").forEach(function (n) { n.classList.remove("changed-since"); });
    if (index >= count) return;
    var since = timeline[count - 1 - index].at;
    timeline.forEach(function (event) {
      if (event.at > since) {
        var node = svg.querySelector('g.node[data-entity-id="service--' + CSS.escape(event.slug) + '"]');
        if (node) node.classList.add("changed-since");
      }
    });
  }
  if (slider) {
    slider.addEventListener("input", function () {
      var index = Number(slider.value), count = timeline.length;
      if (index >= count) { label.textContent = "now"; return; }
      var event = timeline[count - 1 - index];
      label.textContent = event.at.slice(0, 16).replace("T", " ") + " · " + event.name + " " + event.action;
    });
    slider.addEventListener("change", function () {
      var index = Number(slider.value), count = timeline.length;
      var value = index >= count ? "" : timeline[count - 1 - index].at;
      document.dispatchEvent(new CustomEvent("archsvc:at", { detail: { at: value } }));
    });
  }
  // after every redraw: outline what changed since the moment shown
  new MutationObserver(markChanges).observe(viewerRoot.querySelector("[data-stage]"),
                                            { childList: true });

  var download = tools.querySelector("[data-download]");
  download.addEventListener("click", function () {
    var params = new URLSearchParams();
    var exact = timeline.length && slider && Number(slider.value) < timeline.length
      ? timeline[timeline.length - 1 - Number(slider.value)].at : (at && at.value ? at.value + "Z" : "");
    if (exact) params.set("at", exact);
    download.href = "/v1/projects/" + project + "/graph/svg" + (params.toString() ? "?" + params : "");
  });
  var copy = tools.querySelector("[data-copy-mermaid]");
  copy.addEventListener("click", function () {
    fetch("/v1/projects/" + project + "/graph/mermaid", { credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (text) {
        var done = function () { copy.textContent = "Copied"; setTimeout(function () { copy.textContent = "Copy Mermaid"; }, 1500); };
        if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text).then(done);
        var area = document.createElement("textarea");
        area.value = text; document.body.appendChild(area); area.select();
        document.execCommand("copy"); area.remove(); done();
      });
  });
})();
