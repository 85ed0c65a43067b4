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

  function focus(id, name) {
    document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { id: id, name: name, clear: !id } }));
  }

  var group = tools.querySelector("[data-group-filter]");
  if (group) group.addEventListener("change", function () {
    focus(group.value, group.value ? group.selectedOptions[0].textContent : "");
  });
  document.querySelectorAll("[data-focus-id]").forEach(function (button) {
    button.addEventListener("click", function () {
      focus(button.getAttribute("data-focus-id"), button.textContent);
      viewerRoot.scrollIntoView({ behavior: "smooth", block: "start" });
    });
  });

  var slider = tools.querySelector("[data-timeline]");
  var label = tools.querySelector("[data-timeline-label]");
  var count = timeline.length;
  var shownAt = "";  // the instant the graph shows, "" for now

  // instants compare as text once they have the same shape: seconds, six decimals, Z
  function instant(at) {
    var match = /^(.{19})(\.\d+)?Z$/.exec(at);
    return match ? match[1] + ((match[2] || ".") + "000000").slice(0, 7) + "Z" : at;
  }
  function describe(event) {
    return event.at.slice(0, 16).replace("T", " ") + " · " + event.name + " " + event.action;
  }
  // the slider's position for an instant: the newest change at or before it (what is shown
  // is the state that change left), the oldest for an instant before them all
  function positionOf(at) {
    if (!at) return count;
    for (var index = count - 1; index >= 0; index--) {
      if (instant(timeline[count - 1 - index].at) <= instant(at)) return index;
    }
    return 0;
  }
  function labelFor(index, at) {
    if (index >= count) return "now";
    var event = timeline[count - 1 - index];
    return (at && instant(at) < instant(event.at) ? "before " : "") + describe(event);
  }
  function markChanges() {
    var svg = viewerRoot.querySelector(".graph-stage svg");
    if (!svg || !slider) return;
    svg.querySelectorAll(".changed-since").forEach(function (n) { n.classList.remove("changed-since"); });
    if (!shownAt) return;
    // a service is drawn under the slug it had at the moment shown (its latest change by
    // then), which a later rename does not change
    var slugThen = {};
    timeline.forEach(function (event) {  // newest first
      if (instant(event.at) <= instant(shownAt) && !(event.service in slugThen)) {
        slugThen[event.service] = event.slug;
      }
    });
    timeline.forEach(function (event) {
      if (instant(event.at) > instant(shownAt)) {
        var slug = slugThen[event.service] || event.slug;
        var node = svg.querySelector('g.node[data-entity-id="service--' + CSS.escape(slug) + '"]');
        if (node) node.classList.add("changed-since");
      }
    });
  }
  if (slider) {
    // while dragging, the label previews the change under the thumb; on release the graph
    // is redrawn, and the slider then follows what is shown (see archsvc:shown)
    slider.addEventListener("input", function () { label.textContent = labelFor(Number(slider.value), ""); });
    slider.addEventListener("change", function () {
      var index = Number(slider.value);
      var value = index >= count ? "" : timeline[count - 1 - index].at;
      document.dispatchEvent(new CustomEvent("archsvc:at", { detail: { at: value } }));
    });
  }

  // after every redraw, however it was asked for (slider, As of, Now, a click in the graph,
  // the chat, show all): the Show menu, the slider and its label say what the graph shows
  function follow(state) {
    shownAt = state.at || "";
    if (slider) {
      var index = positionOf(shownAt);
      slider.value = String(index);
      label.textContent = labelFor(index, shownAt);
    }
    if (group) {
      var other = group.querySelector("option[data-shown-focus]");
      var known = state.focus && Array.prototype.some.call(group.options, function (option) {
        return option.value === state.focus && !option.hasAttribute("data-shown-focus");
      });
      if (state.focus && !known) {  // focused from the graph or the chat: name it here too
        if (!other) {
          other = document.createElement("option");
          other.setAttribute("data-shown-focus", "");
          group.options[0].after(other);
        }
        other.value = state.focus;
        other.textContent = state.name;
      } else if (other) {
        other.remove();
      }
      group.value = state.focus || "";
    }
    markChanges();
  }
  viewerRoot.addEventListener("archsvc:shown", function (event) { follow(event.detail || {}); });
  // the page opens on the whole project as it is now: a form the browser restores says so too
  follow({ focus: "", at: "" });

  var download = tools.querySelector("[data-download]");
  download.addEventListener("click", function () {  // the graph at the moment shown
    var params = new URLSearchParams();
    if (shownAt) params.set("at", shownAt);
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
