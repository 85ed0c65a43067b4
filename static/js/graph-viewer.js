/* The interactive graph: pan (drag), zoom (wheel, buttons), hover to highlight a node's
   connections, click a node to focus on it, depth and time controls that redraw the graph
   from the server. Dependency-free; works on every element marked data-graph-viewer. */
(function () {
  "use strict";

  function viewBoxOf(svg) {
    var box = svg.viewBox && svg.viewBox.baseVal;
    if (box && box.width) return { x: box.x, y: box.y, w: box.width, h: box.height };
    return { x: 0, y: 0, w: svg.width.baseVal.value || 800, h: svg.height.baseVal.value || 600 };
  }

  function Viewer(root) {
    this.root = root;
    this.stage = root.querySelector("[data-stage]");
    this.status = root.querySelector("[data-status]");
    this.url = root.getAttribute("data-svg-url");
    this.focus = root.getAttribute("data-focus") || "";
    this.depth = root.getAttribute("data-depth") || "1";
    this.at = "";
    this.bindControls();
    this.attach();
  }

  Viewer.prototype.svg = function () { return this.stage.querySelector("svg"); };

  Viewer.prototype.attach = function () {
    var svg = this.svg();
    if (!svg) return;
    this.full = viewBoxOf(svg);
    this.view = { x: this.full.x, y: this.full.y, w: this.full.w, h: this.full.h };
    svg.setAttribute("width", "100%");
    svg.setAttribute("height", "100%");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    this.fit();
    this.bindGraph(svg);
    this.showFocus();
  };

  Viewer.prototype.apply = function () {
    var v = this.view;
    this.svg().setAttribute("viewBox", [v.x, v.y, v.w, v.h].join(" "));
  };

  Viewer.prototype.fit = function () {
    var stage = this.stage.getBoundingClientRect();
    var f = this.full;
    // wide graphs open at a readable scale on their left end, not as a thin strip
    var scale = Math.max(f.w / Math.max(stage.width, 1), f.h / Math.max(stage.height, 1));
    var readable = 1.6;  // beyond this the 12px labels are too small to read
    if (scale > readable) {
      var w = stage.width * readable, h = stage.height * readable;
      var y = f.y;  // the top of the graph at the top of the stage
      this.view = { x: f.x, y: y, w: w, h: h };
    } else if (scale < 1) {  // never enlarge a small graph past 1:1
      this.view = { x: f.x, y: f.y, w: stage.width || f.w, h: stage.height || f.h };
    } else {
      this.view = { x: f.x, y: f.y, w: f.w, h: f.h };
    }
    this.apply();
  };

  Viewer.prototype.zoom = function (factor, cx, cy) {
    var v = this.view;
    var w = Math.min(Math.max(v.w * factor, 40), this.full.w * 4);
    var h = v.h * (w / v.w);
    if (cx === undefined) { cx = v.x + v.w / 2; cy = v.y + v.h / 2; }
    v.x = cx - (cx - v.x) * (w / v.w);
    v.y = cy - (cy - v.y) * (h / v.h);
    v.w = w; v.h = h;
    this.apply();
  };

  Viewer.prototype.toGraph = function (event) {
    var rect = this.stage.getBoundingClientRect();
    var v = this.view;
    var scale = Math.max(v.w / rect.width, v.h / rect.height);
    var offsetX = (rect.width * scale - v.w) / 2, offsetY = (rect.height * scale - v.h) / 2;
    return { x: v.x - offsetX + (event.clientX - rect.left) * scale,
             y: v.y - offsetY + (event.clientY - rect.top) * scale, scale: scale };
  };

  Viewer.prototype.bindGraph = function (svg) {
    var self = this, dragging = null, moved = false;
    svg.addEventListener("wheel", function (event) {
      event.preventDefault();
      var p = self.toGraph(event);
      self.zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, p.x, p.y);
    }, { passive: false });
    svg.addEventListener("pointerdown", function (event) {
      dragging = { x: event.clientX, y: event.clientY, view: Object.assign({}, self.view),
                   scale: self.toGraph(event).scale };
      moved = false;
    });
    window.addEventListener("pointermove", function (event) {
      if (!dragging) return;
      var dx = event.clientX - dragging.x, dy = event.clientY - dragging.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
      self.view.x = dragging.view.x - dx * dragging.scale;
      self.view.y = dragging.view.y - dy * dragging.scale;
      self.apply();
    });
    window.addEventListener("pointerup", function () { dragging = null; });
    svg.querySelectorAll("g.node").forEach(function (node) {
      var id = node.getAttribute("data-entity-id");
      node.addEventListener("mouseenter", function () { self.highlight(svg, id); });
      node.addEventListener("mouseleave", function () { self.highlight(svg, null); });
      node.addEventListener("click", function () {
        if (moved) return;
        if (self.root.querySelector("[data-depth-select]")) {
          self.focus = id;
          self.load();
        }
      });
    });
  };

  Viewer.prototype.highlight = function (svg, id) {
    svg.classList.toggle("dimmed", !!id);
    svg.querySelectorAll(".lit").forEach(function (el) { el.classList.remove("lit"); });
    if (!id) return;
    svg.querySelectorAll("path.edge").forEach(function (edge) {
      var source = edge.getAttribute("data-source"), target = edge.getAttribute("data-target");
      if (source === id || target === id) {
        edge.classList.add("lit");
        [source, target].forEach(function (end) {
          var node = svg.querySelector('g.node[data-entity-id="' + end + '"]');
          if (node) node.classList.add("lit");
        });
      }
    });
    var self_node = svg.querySelector('g.node[data-entity-id="' + id + '"]');
    if (self_node) self_node.classList.add("lit");
  };

  Viewer.prototype.showFocus = function () {
    var name = this.root.querySelector("[data-focus-name]");
    var clear = this.root.querySelector("[data-clear-focus]");
    if (!name) return;
    var label = "whole project";
    if (this.focus) {
      var node = this.stage.querySelector('g.node[data-entity-id="' + this.focus + '"] title');
      label = node ? node.textContent.split("\n")[0] : this.focus;
    }
    name.textContent = label;
    clear.hidden = !this.focus;
  };

  Viewer.prototype.load = function () {
    var self = this, params = new URLSearchParams();
    if (this.focus) { params.append("filteredIds", this.focus); params.set("depth", this.depth); }
    if (this.at) params.set("at", this.at);
    this.status.textContent = "Loading…";
    fetch(this.url + (params.toString() ? "?" + params : ""), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          return response.text().then(function (text) { throw new Error(text || response.statusText); });
        }
        return response.text();
      })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, "image/svg+xml");
        var svg = doc.documentElement;
        if (!svg || svg.nodeName !== "svg") throw new Error("The graph could not be read.");
        self.stage.replaceChildren(document.importNode(svg, true));
        self.status.textContent = "";
        self.attach();
      })
      .catch(function (error) { self.status.textContent = error.message; });
  };

  Viewer.prototype.bindControls = function () {
    var self = this, root = this.root;
    root.querySelectorAll("[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        var how = button.getAttribute("data-zoom");
        if (how === "fit") self.fit(); else self.zoom(how === "in" ? 1 / 1.4 : 1.4);
      });
    });
    var depth = root.querySelector("[data-depth-select]");
    if (depth) depth.addEventListener("change", function () {
      self.depth = depth.value;
      if (self.focus) self.load();
    });
    var clear = root.querySelector("[data-clear-focus]");
    if (clear) clear.addEventListener("click", function () { self.focus = ""; self.load(); });
    var at = root.querySelector("[data-at]");
    if (at) at.addEventListener("change", function () {
      self.at = at.value ? at.value + (at.value.length === 16 ? ":00" : "") + "Z" : "";
      self.load();
    });
    var now = root.querySelector("[data-now]");
    if (now) now.addEventListener("click", function () { if (at) at.value = ""; self.at = ""; self.load(); });
  };

  document.querySelectorAll("[data-graph-viewer]").forEach(function (root) {
    var viewer = new Viewer(root);
    // other parts of the page (the chat's cited entities) can focus the graph
    // the history slider passes exact instants (a datetime input keeps only seconds)
    document.addEventListener("archsvc:at", function (event) {
      var at = root.querySelector("[data-at]");
      viewer.at = (event.detail && event.detail.at) || "";
      if (at) at.value = viewer.at ? viewer.at.slice(0, 19) : "";
      viewer.load();
    });
    document.addEventListener("archsvc:focus", function (event) {
      var detail = event.detail || {};
      if (!root.querySelector("[data-depth-select]")) return;
      if (!detail.id && !detail.clear) return;
      viewer.focus = detail.id || "";
      viewer.load();
    });
  });
})();
