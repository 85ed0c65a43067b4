/* The interactive graph: pan (drag, one finger sideways, arrow keys), zoom (buttons, pinch,
   Ctrl/⌘ + wheel, +/- keys), hover to highlight a node's connections, click a node to focus
   on it, depth and time controls that redraw the graph from the server (a step in time
   glides the boxes to their new places), an overview of a drawing too big to read whole
   (press or drag in it to move the view). Dependency-free; works on every element marked
   data-graph-viewer. After every redraw it tells the page what it shows (the
   `archsvc:shown` event), so the page's own controls can follow. */
(function () {
  "use strict";

  var MIN_SCALE = 1 / 6;   // graph units per CSS pixel: zoomed in to 6x at most
  var READABLE = 1.25;     // the smallest a page opens a graph at: 12px labels at 9.6px
  var ZOOM_STEP = 1.4;     // one press of + or -
  var PAN_STEP = 0.15;     // one arrow key: this share of the visible width or height
  var NARROW = 600;        // an embed narrower than this opens readable, like the pages
  var OVERSCAN = 0.5;      // the drawing reaches this share of the frame past each side
  var SETTLE_MS = 150;     // a drag or a wheel this long still is drawn anew
  var BIG_BOXES = 1000;    // a drawing this big zooms by the compositor first (see slow)
  var GLIDE = "transform 120ms ease-out";  // a button's zoom on such a drawing, animated
  var CULL_PAD = 12;       // graph units past an edge's or a box's own area: an arrowhead
  var LABEL = 12;          // a box's label size in graph units (layout.FONT_SIZE)
  var FAR_LABEL_PX = 3;    // labels smaller than this on screen are left out (see apply)
  var KINDS = { service: "service", messaging: "topic", category: "category", owner: "owner",
                flow: "flow" };
  var DEPTH_OFF = "Depth counts steps around a focus: choose one in Show or click a box first";
  var DEPTH_ON = "How many steps around the focus to show";
  var BUSY_CELLS = 8;       // the opening view's grid: a view is this many cells a side (busiest)
  var NEAR_BUSIEST = 0.9;  // a place holding this share of the most boxes is as good (busiest)
  var OVERVIEW_W = 200;    // the overview's largest size, CSS pixels (showOverview)
  var OVERVIEW_H = 140;
  var TIME_STEP_MS = 300;  // a time step's boxes glide this long (glideFrom)
  var TIME_STEP = "transform " + TIME_STEP_MS + "ms ease-out, opacity " + TIME_STEP_MS + "ms ease-out";
  var MAC = /Mac|iPhone|iPad/.test(navigator.platform || "");
  var REDUCED_MOTION = window.matchMedia("(prefers-reduced-motion: reduce)");

  function viewBoxOf(svg) {
    var box = svg.viewBox && svg.viewBox.baseVal;
    if (box && box.width) return { x: box.x, y: box.y, w: box.width, h: box.height };
    return { x: 0, y: 0, w: svg.width.baseVal.value || 800, h: svg.height.baseVal.value || 600 };
  }

  var SVG_NS = "http://www.w3.org/2000/svg";

  function clamp(value, low, high) { return Math.min(Math.max(value, low), high); }

  /* The area a box or an edge covers, in graph units. A box: its rect. An edge: the bounds
     of its points. Its path is written from an "M" in relative steps, "h" along a rank and
     "c" for an S-bend whose control points lie between the bend's two ends
     (svg._edge_path), so a curve never leaves its ends' bounds. A path in any other form
     covers everything: always shown. */
  var EVERYWHERE = { x0: -Infinity, y0: -Infinity, x1: Infinity, y1: Infinity };
  function boxArea(node) {
    var rect = node.querySelector("rect");
    if (!rect) return EVERYWHERE;
    var x = +rect.getAttribute("x"), y = +rect.getAttribute("y");
    var area = { x0: x, y0: y, x1: x + +rect.getAttribute("width"), y1: y + +rect.getAttribute("height") };
    return isFinite(area.x0 + area.y0 + area.x1 + area.y1) ? area : EVERYWHERE;  // "10px": shown
  }
  var NUMBERS = [];  // a path command's numbers, reused: a 3,000-service drawing has a million
  function edgeArea(edge) {
    // read by hand, a character at a time: a pattern per step took 150-300 ms at 3,000
    // services (3.5 MB of paths), one pattern over each path and a string per number 110-160
    var d = edge.getAttribute("d") || "", length = d.length, i = 0;
    var x = 0, y = 0, area = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    var command = 0, n = NUMBERS, count = 0, k;
    while (i <= length) {
      var c = i < length ? d.charCodeAt(i) : 65;  // the end closes the last command
      if (c >= 65) {  // a letter: the command before it is whole
        if (command === 77 && count >= 2 && count % 2 === 0) {  // M
          for (k = 0; k < count; k += 2) { x = n[k]; y = n[k + 1]; grow(area, x, y); }
        } else if (command === 104 && count) {  // h
          for (k = 0; k < count; k++) { x += n[k]; grow(area, x, y); }
        } else if (command === 99 && count && count % 6 === 0) {  // c
          for (k = 0; k < count; k += 6) { x += n[k + 4]; y += n[k + 5]; grow(area, x, y); }
        } else if (command !== 0 || count) {
          return EVERYWHERE;  // not as svg._edge_path writes (an exponent's "e" included)
        }
        command = c;
        count = 0;
        i++;
      } else if (c === 45 || c === 46 || (c >= 48 && c <= 57)) {  // "-", ".", a digit
        var sign = 1, value = 0, scale = 0.1;
        if (c === 45) { sign = -1; i++; }
        while (i < length && (c = d.charCodeAt(i)) >= 48 && c <= 57) { value = value * 10 + c - 48; i++; }
        if (i < length && c === 46) {
          i++;
          while (i < length && (c = d.charCodeAt(i)) >= 48 && c <= 57) {
            value += (c - 48) * scale;
            scale /= 10;
            i++;
          }
        }
        n[count++] = sign * value;
      } else {
        i++;  // a space or a comma
      }
    }
    return area.x0 <= area.x1 && isFinite(area.x0 + area.y0 + area.x1 + area.y1) ? area : EVERYWHERE;
  }
  function grow(area, x, y) {
    if (x < area.x0) area.x0 = x;
    if (x > area.x1) area.x1 = x;
    if (y < area.y0) area.y0 = y;
    if (y > area.y1) area.y1 = y;
  }

  function Viewer(root) {
    this.root = root;
    this.stage = root.querySelector("[data-stage]");
    this.status = root.querySelector("[data-status]");
    this.url = root.getAttribute("data-svg-url");
    this.history = root.getAttribute("data-history") !== "off";
    this.focus = root.getAttribute("data-focus") || "";
    this.focusName = "";
    this.depth = root.getAttribute("data-depth") || "1";
    // the view the server drew in the page (or left to load): the address's, else the whole
    // project now
    this.at = root.getAttribute("data-view-at") || "";
    this.shown = { focus: this.focus, focusName: "", depth: this.depth, at: this.at };
    this.requests = 0;
    this.drawing = this.stage.querySelector("svg");  // the drawing shown (see attach)
    this.overview = root.querySelector("[data-overview]");
    this.bindControls();
    this.bindStage();
    this.bindOverview();
    this.attach();
    this.sayMissing();  // an address's focus the server drew
    // a graph too big to inline (a shared page of thousands of services) is fetched
    if (!this.svg() && root.hasAttribute("data-load")) this.load();
  }

  Viewer.prototype.svg = function () { return this.drawing; };

  // after a redraw a member asked for, what it shows, in words: "Focus on Checkout, 1 step
  // around: 5 services, 3 topics; As of …" (the drawing's own name carries the counts and
  // the moment: svg.py)
  Viewer.prototype.sayShown = function () {
    var said = this.root.querySelector("[data-said]"), svg = this.svg();
    if (!said || !svg || this.status.textContent) return;  // a note of its own is said
    // the counts and the moment end the drawing's name (the project's name, which may hold
    // anything, begins it; the moment holds no ";")
    var counted = /[\d,]+ services?, [\d,]+ topics?; [^;]*$/.exec(svg.getAttribute("aria-label") || "");
    if (!counted) return;
    var what = counted[0];
    var depth = Number(this.shown.depth || 0);
    var view = this.shown.focus
      ? "Focus on " + this.nameOf(this.shown.focus, this.shown.focusName) +
        (depth ? ", " + depth + (depth === 1 ? " step" : " steps") + " around" : "")
      : "The whole project";
    // said once the member pauses: a slider walked step by step by its arrow keys queued
    // a sentence a step
    clearTimeout(this.sayTimer);
    this.sayTimer = setTimeout(function () { said.textContent = view + ": " + what; }, 500);
  };

  // a focus on what the moment shown does not hold (a service deleted since, say) draws
  // nothing: said, with the way out (a big drawing's boxes may be out of the page: counted)
  Viewer.prototype.sayMissing = function () {
    if (!this.svg() || !this.shown.focus || this.nodes.length) return;
    this.status.textContent = this.nameOf(this.shown.focus, this.shown.focusName) +
      " is not in the project at this moment: show all to see what is.";
  };

  /* `keep`: the view to stay at (the same graph at another time), else the opening view.
     `fresh`: a drawing read from the server to take the place of the one shown. It goes in
     measured and placed: a script that reads the page's layout (the stage's size) while a
     big drawing is in it waits for all of the drawing to be laid out, and placing it after
     lays it all out again (at 3,000 services some 300 ms each time, bench/viewer.py). So
     the stage is emptied and measured first, and the drawing goes in at its view. */
  Viewer.prototype.attach = function (keep, fresh) {
    if (fresh) {
      this.stage.replaceChildren();
      this.drawing = fresh;
    }
    var svg = this.svg();
    if (!svg) return;
    this.full = viewBoxOf(svg);
    if (fresh && this.stage.classList.contains("graph-ratio")) {
      // the stylesheet's bounds of the frame (1:1, readable) are the drawing's shown: the
      // first one's capped the whole project, after a focused address, at its own height
      this.stage.style.setProperty("--graph-w", String(this.full.w));
      this.stage.style.setProperty("--graph-h", String(this.full.h));
    }
    svg.setAttribute("width", "100%");  // until apply() sizes it with its overscan
    svg.setAttribute("height", "100%");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    this.drawn = null;
    this.litSvg = this.litId = null;
    this.lifted = [];
    this.nodes = Array.prototype.slice.call(svg.querySelectorAll("g.node"));
    this.edges = Array.prototype.slice.call(svg.querySelectorAll("path.edge"));
    this.boxes = this.nodes.length;
    this.rectList = null;  // read when asked for (rects)
    this.nodeById = Object.create(null);  // ids come from the address too
    for (var i = 0; i < this.nodes.length; i++) {
      this.nodeById[this.nodes[i].getAttribute("data-entity-id")] = this.nodes[i];
    }
    this.parts = this.slow() ? this.partsOf() : null;
    this.sizeStage();
    if (keep) { this.view = keep; this.apply(); } else { this.start(); }
    if (fresh) this.stage.appendChild(fresh);
    this.bindGraph(svg);
    this.showState();
  };

  /* The frame takes the graph's proportions (a flat, wide graph gets a low frame, not a
     band of white under it), within the min-height and max-height of the stylesheet. The
     embed's frame is its whole window: it has no graph-sized class. */
  Viewer.prototype.sizeStage = function () {
    if (!this.stage.classList.contains("graph-sized") || !this.full) return;
    if (document.fullscreenElement === this.root) return;  // the screen is its size then
    var width = this.stage.clientWidth;
    if (!width) return;
    // fit the width, never enlarge past 1:1, never shrink past readable (then it pans)
    var scale = clamp(this.full.w / width, 1, READABLE);
    var border = getComputedStyle(this.stage).boxSizing === "border-box"
      ? this.stage.offsetHeight - this.stage.clientHeight : 0;
    // unrounded, as the stylesheet's ratio sizes it before this script runs (app.css
    // .graph-ratio): a pixel more there moved the drawing in it by two, at 200% (OVERSCAN)
    this.stage.style.height = (this.full.h / scale + border).toFixed(3) + "px";
  };

  Viewer.prototype.size = function () {
    return { w: this.stage.clientWidth || 1, h: this.stage.clientHeight || 1 };
  };

  // the scale (graph units per pixel) that shows the whole graph; a small graph stays 1:1
  Viewer.prototype.fitScale = function () {
    var size = this.size();
    return Math.max(this.full.w / size.w, this.full.h / size.h, 1);
  };

  /* The view is a centre and a scale. The SVG element is the frame plus OVERSCAN of it past
     each side (the frame clips it), and its viewBox has the same proportions, so the
     frame shows exactly the view and its centre is the centre of the frame. */
  Viewer.prototype.clampView = function () {
    var v = this.view, f = this.full, size = this.size();
    v.scale = clamp(v.scale, MIN_SCALE, this.fitScale());
    this.fitted = v.scale >= this.fitScale();  // then the view is the fit: a resize fits again
    var w = size.w * v.scale, h = size.h * v.scale;
    // keep the graph in view: centred along an axis it fits in, else no margin past its edges
    v.cx = w >= f.w ? f.x + f.w / 2 : clamp(v.cx, f.x + w / 2, f.x + f.w - w / 2);
    v.cy = h >= f.h ? f.y + f.h / 2 : clamp(v.cy, f.y + h / 2, f.y + f.h - h / 2);
    this.showEdges(v.cx - w / 2, v.cy - h / 2, w, h);
    this.showOverview(v.cx - w / 2, v.cy - h / 2, w, h, size);
    return size;
  };

  // draw the view: the SVG is laid out anew (at 3,000 services some 200 ms)
  Viewer.prototype.apply = function () {
    clearTimeout(this.settleTimer);
    var v = this.view, size = this.clampView(), svg = this.svg();
    // whole pixels: a drawing placed at a half pixel is drawn blurred on its own layer
    var ow = Math.round(size.w * OVERSCAN), oh = Math.round(size.h * OVERSCAN);
    var w = size.w * v.scale, h = size.h * v.scale;
    svg.style.position = "absolute";
    svg.style.willChange = "transform";  // its own layer: a move is the compositor's alone
    svg.style.left = -ow + "px";
    svg.style.top = -oh + "px";
    svg.style.width = size.w + 2 * ow + "px";
    svg.style.height = size.h + 2 * oh + "px";
    svg.style.transformOrigin = ow + size.w / 2 + "px " + (oh + size.h / 2) + "px";
    svg.style.transition = "";
    svg.style.transform = "";
    var area = [v.cx - w / 2 - ow * v.scale, v.cy - h / 2 - oh * v.scale,
                w + 2 * ow * v.scale, h + 2 * oh * v.scale];
    this.cull(area[0], area[1], area[2], area[3]);
    // far out, a label is a grey smear a pixel or two high: the drawing goes without its
    // labels (app.css, svg.far), as a map leaves out the names of streets far out. Laying
    // out the text was most of a redraw's main thread: at 3,000 services near the whole
    // graph a zoom's longest task was 200-250 ms, under 16 without it (bench/viewer.py)
    svg.classList.toggle("far", LABEL / v.scale < FAR_LABEL_PX);
    var box = area.join(" ");
    // set again unchanged (the stage's resize observer, after a drawing went in sized) it
    // would still lay the whole drawing out again
    if (svg.getAttribute("viewBox") !== box) svg.setAttribute("viewBox", box);
    this.drawn = { cx: v.cx, cy: v.cy, scale: v.scale, w: size.w, h: size.h };
  };

  /* A big drawing keeps in the page only the boxes and edges its drawn area (the view and
     its overscan) reaches: at a readable size, a few hundred of a 3,000-service project's
     18,000 elements. Chromium lays out and styles every element of an SVG in the page on
     each new viewBox, seen or not: 0.7-1 s to open such a project and 300-450 ms to draw it
     anew after a zoom or a drag, which now go by what is in view (bench/viewer.py). The
     rest wait in order, out of the page, with their listeners and classes (a focus's
     outline, a change's mark), and come back in their places as the view reaches them.
     `partsOf`: each group's boxes or edges, in drawing order, with their areas. */
  Viewer.prototype.partsOf = function () {
    var parts = [];
    [[this.edges, edgeArea], [this.nodes, boxArea]].forEach(function (pair) {
      if (!pair[0].length) return;
      var group = pair[0][0].parentNode;
      parts.push({ group: group, items: pair[0].filter(function (el) {
        return el.parentNode === group;
      }).map(function (el) {
        var area = pair[1](el);
        return { el: el, x0: area.x0, y0: area.y0, x1: area.x1, y1: area.y1 };
      }) });
    });
    return parts;
  };

  Viewer.prototype.cull = function (x, y, w, h) {
    if (!this.parts) return;
    var svg = this.svg(), lit = this.litId;
    if (lit) this.highlight(svg, null);  // the lifted go back to their places first
    var x0 = x - CULL_PAD, y0 = y - CULL_PAD, x1 = x + w + CULL_PAD, y1 = y + h + CULL_PAD;
    this.parts.forEach(function (part) {
      // the group's children are some of its items, in order: walk both at once, taking out
      // what leaves the area and putting in what enters it before the next one shown
      var group = part.group, next = group.firstElementChild;
      for (var i = 0; i < part.items.length; i++) {
        var item = part.items[i], el = item.el;
        var wanted = item.x1 >= x0 && item.x0 <= x1 && item.y1 >= y0 && item.y0 <= y1;
        if (el === next) {
          next = el.nextElementSibling;
          if (!wanted) group.removeChild(el);
        } else if (wanted) {
          group.insertBefore(el, next);
        }
      }
    });
    if (lit) this.highlight(svg, lit);
  };

  /* A view on the move (a drag, a pinch, the wheel; keys and buttons on a big drawing): the
     drawing as it is, moved and scaled by the compositor, and drawn anew once the move
     rests, or at once when the frame would show past the drawing's overscan. Laying out a
     big graph on every pointer move made dragging 3,000 services run at 5 frames a second.
     `glide`: animated there (a key's or a button's step), unless the member asked for less
     motion. */
  Viewer.prototype.move = function (glide) {
    var d = this.drawn, v = this.view, svg = this.svg();
    if (!d || !svg) { this.apply(); return; }
    var size = this.clampView();
    var k = d.scale / v.scale;  // the drawing's magnification
    var tx = (d.cx - v.cx) / v.scale, ty = (d.cy - v.cy) / v.scale;
    // the frame must stay inside the moved drawing
    var covered = size.w === d.w && size.h === d.h &&
      Math.abs(tx) + size.w / 2 <= k * size.w * (0.5 + OVERSCAN) &&
      Math.abs(ty) + size.h / 2 <= k * size.h * (0.5 + OVERSCAN);
    if (!covered) { this.apply(); return; }
    svg.style.transition = glide && !REDUCED_MOTION.matches ? GLIDE : "";
    svg.style.transform = "translate(" + tx + "px, " + ty + "px) scale(" + k + ")";
    var self = this;
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(function () { self.settle(); }, SETTLE_MS);
  };

  /* A drawing slow to draw anew, a thousand boxes or more: from a press to the frame shown,
     40 ms at 200 services, 140 at 1,000 and 380 at 3,000 in headless Chromium without a GPU
     (bench/viewer.py). The time it takes is not known to the page (the main thread's share of
     it, the only part a script can time, was 20 to 40 ms at 1,000). */
  Viewer.prototype.slow = function () { return this.boxes >= BIG_BOXES; };

  // the move has rested: draw what it shows
  Viewer.prototype.settle = function () {
    clearTimeout(this.settleTimer);
    if (this.view && this.svg() && this.svg().style.transform) this.apply();
  };

  // shade the sides past which the graph goes on (half a pixel of slack: rounding)
  Viewer.prototype.showEdges = function (x, y, w, h) {
    var edges = this.root.querySelector("[data-edges]"), f = this.full;
    if (!edges) return;
    var slack = this.view.scale / 2;
    edges.style.setProperty("--l", x > f.x + slack ? 1 : 0);
    edges.style.setProperty("--r", x + w < f.x + f.w - slack ? 1 : 0);
    edges.style.setProperty("--t", y > f.y + slack ? 1 : 0);
    edges.style.setProperty("--b", y + h < f.y + f.h - slack ? 1 : 0);
  };

  /* The overview: the whole drawing small in a corner of the frame, with a frame over it
     round what is in view. Its boxes are drawn as specks of their category's colour on a
     canvas, once a drawing and only when first shown: a copy of the SVG would double the
     elements the page lays out on every redraw (some 18,000 at 3,000 services, see cull). A
     pan or a zoom only moves the frame over it. It shows while part of the drawing is out of
     view. It is at most a quarter of the frame's width and a third of its height, and left
     out of a frame under NARROW wide (a phone, a small embed): there even that hid boxes one
     taps, a swipe is the way about, and the shaded sides (showEdges) say where more is. */
  Viewer.prototype.showOverview = function (x, y, w, h, size) {
    var box = this.overview, f = this.full;
    if (!box) return;
    var slack = this.view.scale / 2;
    var whole = x <= f.x + slack && y <= f.y + slack &&
      x + w >= f.x + f.w - slack && y + h >= f.y + f.h - slack;
    var show = !whole && this.boxes > 0 && size.w >= NARROW;
    if (box.hidden === show) box.hidden = !show;  // (set unchanged, it restyles the page)
    if (!show) return;
    var k = Math.min(Math.min(OVERVIEW_W, size.w / 4) / f.w, Math.min(OVERVIEW_H, size.h / 3) / f.h);
    if (this.overviewOf !== this.drawing || this.overviewScale !== k) this.drawOverview(k);
    var x0 = Math.max(x, f.x), y0 = Math.max(y, f.y);
    var x1 = Math.min(x + w, f.x + f.w), y1 = Math.min(y + h, f.y + f.h);
    var frame = this.overviewView.style;
    frame.transform = "translate(" + ((x0 - f.x) * k).toFixed(1) + "px, " +
      ((y0 - f.y) * k).toFixed(1) + "px)";
    frame.width = Math.max((x1 - x0) * k, 4).toFixed(1) + "px";  // zoomed far in: still seen
    frame.height = Math.max((y1 - y0) * k, 4).toFixed(1) + "px";
  };

  // the overview's canvas at `k` CSS pixels a graph unit, sharp on the screen's pixels
  Viewer.prototype.drawOverview = function (k) {
    var f = this.full, canvas = this.overviewCanvas, ratio = window.devicePixelRatio || 1;
    this.overviewOf = this.drawing;
    this.overviewScale = k;
    this.overview.style.width = (f.w * k).toFixed(2) + "px";
    this.overview.style.height = (f.h * k).toFixed(2) + "px";
    canvas.width = Math.max(1, Math.round(f.w * k * ratio));
    canvas.height = Math.max(1, Math.round(f.h * k * ratio));
    var context = canvas.getContext("2d");
    if (!context) return;
    var ux = canvas.width / f.w, uy = canvas.height / f.h;  // device pixels a graph unit
    context.setTransform(ux, 0, 0, uy, -f.x * ux, -f.y * uy);
    // a box at least a pixel and a half: a speck seen. Outlined as the drawing's boxes are:
    // the neutral fill (no category) is all but white on the canvas
    var least = 1.5 * ratio / ux, rects = this.rects();
    context.lineWidth = 0.75 * ratio / ux;
    context.strokeStyle = "rgba(55, 65, 81, .7)";
    for (var i = 0; i < rects.length; i++) {
      var r = rects[i], w = Math.max(r.w, least), h = Math.max(r.h, least);
      context.fillStyle = r.fill;
      context.fillRect(r.x, r.y, w, h);
      context.strokeRect(r.x, r.y, w, h);
    }
  };

  /* A press in the overview takes the view there (its centre to the point pressed); a drag
     carries it along, moved by the compositor as a drag on the graph is (move), and drawn
     anew when let go. */
  Viewer.prototype.bindOverview = function () {
    var self = this, box = this.overview, held = null, dragged = false;
    if (!box) return;
    this.overviewCanvas = box.querySelector("canvas");
    this.overviewView = box.querySelector("[data-overview-view]");
    function lookAt(event, live) {
      var k = self.overviewScale, f = self.full;
      if (!self.view || !k) return;
      var rect = box.getBoundingClientRect();
      self.view.cx = f.x + (event.clientX - rect.left - box.clientLeft) / k;
      self.view.cy = f.y + (event.clientY - rect.top - box.clientTop) / k;
      // a slow drawing glides there by the compositor, as a zoom button's step does
      if (live) self.move(); else if (self.slow()) self.move(true); else self.apply();
    }
    box.addEventListener("pointerdown", function (event) {
      if (event.pointerType === "mouse" && event.button !== 0) return;
      event.preventDefault();  // no text selection, no focus moved
      held = event.pointerId;
      dragged = false;
      try { box.setPointerCapture(held); } catch (ignored) { /* a pointer already gone */ }
      lookAt(event, false);
    });
    box.addEventListener("pointermove", function (event) {
      if (event.pointerId !== held) return;
      dragged = true;
      lookAt(event, true);
    });
    function letGo(event) {
      if (event.pointerId !== held) return;
      held = null;
      if (dragged) self.settle();  // (a press's glide settles by itself)
    }
    box.addEventListener("pointerup", letGo);
    box.addEventListener("pointercancel", letGo);
  };

  /* The view a page opens with: the whole graph when it can be read that way; a graph too
     big for that opens at the smallest readable size on its busiest part (busiest), and Fit
     (or 0) shows all of it. A wide embed, sized by its host, fits (a preview of the whole); a
     narrow one would make a big graph a strip of specks, so it opens readable. */
  Viewer.prototype.start = function () {
    if (!this.full) return;
    var wideEmbed = !this.stage.classList.contains("graph-sized") && this.size().w >= NARROW;
    if (wideEmbed || this.fitScale() <= READABLE * 1.01) {
      this.fit();
      return;
    }
    var size = this.size();
    // the part of the frame on screen as the page opens: a frame taller than what is left
    // of the window under the controls showed its top, and the view's middle was below it
    var seen = this.onScreen(size.h);
    var spot = this.busiest(size.w * READABLE, seen.h * READABLE);
    var cy = spot.y + (size.h / 2 - (seen.top + seen.h / 2)) * READABLE;
    this.view = { cx: spot.x, cy: cy, scale: READABLE };
    this.apply();
  };

  // The stretch of the frame's height in the window (its top and height, in the frame's
  // pixels); all of it when the frame is not laid out or not on screen at all.
  Viewer.prototype.onScreen = function (height) {
    var rect = this.stage.getBoundingClientRect(), inner = window.innerHeight || height;
    var top = Math.max(0, -rect.top), bottom = Math.min(height, inner - rect.top);
    if (!rect.height || bottom - top < Math.min(height, 120)) return { top: 0, h: height };
    return { top: top, h: bottom - top };
  };

  /* Every box's rect and fill, in graph units, read once a drawing when first asked for (the
     opening view, the overview, a time step's glide): a big drawing's boxes out of view are
     out of the page (cull) but here all the same. */
  Viewer.prototype.rects = function () {
    if (this.rectList) return this.rectList;
    var list = [];
    for (var i = 0; i < this.nodes.length; i++) {
      var area = boxArea(this.nodes[i]);
      if (area === EVERYWHERE) continue;  // no rect, or "10px": placed nowhere we can read
      list.push({ id: this.nodes[i].getAttribute("data-entity-id"), x: area.x0, y: area.y0,
                  w: area.x1 - area.x0, h: area.y1 - area.y0,
                  fill: this.nodes[i].querySelector("rect").getAttribute("fill") || "#e5e7eb" });
    }
    return (this.rectList = list);
  };

  /* Where a readable opening view goes: the middle of the boxes in the `w` x `h` window (graph
     units) that holds the most boxes' centres. The drawings are folded into rows of a
     screen's shape, so the busy part may be anywhere; the old opening, a strip at the left
     centred where its boxes were thickest, had already shown what the middle alone does (a
     3,000-service project opened on a phone on no box at all, a 200-service one on a desktop
     on 17 boxes of its 523 under two-thirds of blank canvas).
     The centres go into a grid of cells (BUSY_CELLS to the window's side, at most 200 to the
     drawing's), summed into a table of running sums, so a window's count is four reads: a
     few milliseconds at 3,000 boxes, where counting each window's boxes one by one would be
     millions of steps. Of the windows that hold nearly the most (NEAR_BUSIEST), the one
     nearest the drawing's top left wins: the layout reads left to right and its rows from the
     top, so that is where the flow starts, and a near tie should not open on its far end.
     The view then centres on the span of that window's boxes: a cluster smaller than the view
     sits in its middle, not in the corner the tie pushed it to. */
  Viewer.prototype.busiest = function (w, h) {
    var f = this.full, rects = this.rects(), i, j, r;
    var cw = Math.max(w / BUSY_CELLS, f.w / 200), ch = Math.max(h / BUSY_CELLS, f.h / 200);
    var nx = Math.max(1, Math.ceil(f.w / cw)), ny = Math.max(1, Math.ceil(f.h / ch));
    // whole cells no bigger than the view: all the boxes counted fit in it
    var kx = clamp(Math.floor(w / cw), 1, nx), ky = clamp(Math.floor(h / ch), 1, ny);
    var row = nx + 1, sums = new Int32Array(row * (ny + 1));
    for (i = 0; i < rects.length; i++) {
      r = rects[i];
      var ci = clamp(Math.floor((r.x + r.w / 2 - f.x) / cw), 0, nx - 1);
      var cj = clamp(Math.floor((r.y + r.h / 2 - f.y) / ch), 0, ny - 1);
      sums[(cj + 1) * row + ci + 1]++;
    }
    for (j = 1; j <= ny; j++) {
      for (i = 1; i <= nx; i++) {
        sums[j * row + i] += sums[(j - 1) * row + i] + sums[j * row + i - 1] - sums[(j - 1) * row + i - 1];
      }
    }
    function count(i, j) {
      return sums[(j + ky) * row + i + kx] - sums[j * row + i + kx] -
        sums[(j + ky) * row + i] + sums[j * row + i];
    }
    var most = 0;
    for (j = 0; j <= ny - ky; j++) for (i = 0; i <= nx - kx; i++) most = Math.max(most, count(i, j));
    var bi = 0, bj = 0, nearest = Infinity;
    for (j = 0; j <= ny - ky; j++) {
      for (i = 0; i <= nx - kx; i++) {
        var far = i / kx + j / ky;  // from the top left, in views
        if (far < nearest && count(i, j) >= most * NEAR_BUSIEST) { nearest = far; bi = i; bj = j; }
      }
    }
    var x0 = f.x + bi * cw, y0 = f.y + bj * ch, x1 = x0 + kx * cw, y1 = y0 + ky * ch;
    var span = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (i = 0; i < rects.length; i++) {
      r = rects[i];
      var mx = r.x + r.w / 2, my = r.y + r.h / 2;
      if (mx >= x0 && mx < x1 && my >= y0 && my < y1) grow(span, mx, my);
    }
    if (span.x0 > span.x1) return { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };  // no box at all
    return { x: (span.x0 + span.x1) / 2, y: (span.y0 + span.y1) / 2 };
  };

  // `glide`: by the compositor first, as a zoom button's step, when the drawing covers the fit
  Viewer.prototype.fit = function (glide) {
    if (!this.full) return;
    var f = this.full;
    this.view = { cx: f.x + f.w / 2, cy: f.y + f.h / 2, scale: this.fitScale() };
    if (glide) this.move(true); else this.apply();
  };

  /* zoom by `factor` (>1 zooms out) keeping the graph point under stage pixel (px, py) still;
     without a point, around the centre of what is visible. `live`: a step of a move (the
     wheel, a pinch, a held key), by the compositor; "glide": one step (a button), by the
     compositor and animated. */
  Viewer.prototype.zoom = function (factor, px, py, live) {
    if (!this.view) return;
    var v = this.view, size = this.size();
    if (px === undefined) { px = size.w / 2; py = size.h / 2; }
    var gx = v.cx + (px - size.w / 2) * v.scale, gy = v.cy + (py - size.h / 2) * v.scale;
    var scale = clamp(v.scale * factor, MIN_SCALE, this.fitScale());
    v.cx = gx - (px - size.w / 2) * scale;
    v.cy = gy - (py - size.h / 2) * scale;
    v.scale = scale;
    if (live) this.move(live === "glide"); else this.apply();
  };

  Viewer.prototype.pan = function (dx, dy, live) {  // in stage pixels
    if (!this.view) return;
    this.view.cx += dx * this.view.scale;
    this.view.cy += dy * this.view.scale;
    if (live) this.move(live === "glide"); else this.apply();
  };

  Viewer.prototype.point = function (event) {  // a pointer's position in stage pixels
    var rect = this.stage.getBoundingClientRect();
    return { x: event.clientX - rect.left - this.stage.clientLeft,
             y: event.clientY - rect.top - this.stage.clientTop };
  };

  /* Listeners on the stage, bound once (the SVG inside is replaced on every redraw).
     Touch: the stage is `touch-action: pan-y`, so a vertical swipe scrolls the page; a
     sideways swipe pans the graph and two fingers pinch-zoom it, through pointer events.
     Wheel: like embedded maps, a plain wheel scrolls the page (a graph in the middle of a
     page must not trap the scroll) and Ctrl/⌘ + wheel zooms; a trackpad pinch arrives as
     Ctrl + wheel. Keys, when the stage has focus: arrows pan, + (or =) and - zoom, 0 fits. */
  Viewer.prototype.bindStage = function () {
    var self = this, stage = this.stage, pointers = {}, gesture = null;
    this.moved = false;

    function start() {
      var ids = Object.keys(pointers);
      if (!self.view || !ids.length) { gesture = null; return; }
      var a = pointers[ids[0]], b = pointers[ids[1]] || a;
      gesture = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, distance: Math.hypot(a.x - b.x, a.y - b.y),
                  view: Object.assign({}, self.view), size: self.size() };
    }
    stage.addEventListener("pointerdown", function (event) {
      if (event.pointerType === "mouse" && event.button !== 0) return;
      pointers[event.pointerId] = self.point(event);
      self.moved = false;
      start();
    });
    window.addEventListener("pointermove", function (event) {
      if (!(event.pointerId in pointers) || !gesture) return;
      pointers[event.pointerId] = self.point(event);
      var ids = Object.keys(pointers), a = pointers[ids[0]], b = pointers[ids[1]] || a;
      var x = (a.x + b.x) / 2, y = (a.y + b.y) / 2, g = gesture, size = g.size;
      var scale = g.view.scale;
      if (ids.length > 1 && g.distance > 0) {
        scale = clamp(g.view.scale * g.distance / Math.max(Math.hypot(a.x - b.x, a.y - b.y), 1),
                      MIN_SCALE, self.fitScale());
      }
      if (Math.abs(x - g.x) + Math.abs(y - g.y) > (event.pointerType === "mouse" ? 3 : 8) ||
          scale !== g.view.scale) self.moved = true;
      if (!self.moved) return;
      // the graph point that was under the fingers' (or mouse's) start stays under them
      var gx = g.view.cx + (g.x - size.w / 2) * g.view.scale;
      var gy = g.view.cy + (g.y - size.h / 2) * g.view.scale;
      self.view = { cx: gx - (x - size.w / 2) * scale, cy: gy - (y - size.h / 2) * scale,
                    scale: scale };
      self.move();
    });
    function end(event) {
      if (!(event.pointerId in pointers)) return;
      delete pointers[event.pointerId];
      if (!Object.keys(pointers).length) self.settle();  // let go: drawn as it now is
      start();  // the fingers left carry on from where the view is
    }
    window.addEventListener("pointerup", end);
    window.addEventListener("pointercancel", end);  // the browser took the swipe: a page scroll

    stage.addEventListener("wheel", function (event) {
      if (!self.view) return;
      if (!(event.ctrlKey || event.metaKey)) { self.hint(); return; }
      event.preventDefault();
      var delta = event.deltaY * (event.deltaMode === 1 ? 16 : 1);
      var p = self.point(event);
      self.zoom(Math.exp(clamp(delta, -100, 100) * 0.002), p.x, p.y, true);
    }, { passive: false });

    stage.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey || !self.view) return;
      var size = self.size();
      var moves = { ArrowLeft: [-PAN_STEP * size.w, 0], ArrowRight: [PAN_STEP * size.w, 0],
                    ArrowUp: [0, -PAN_STEP * size.h], ArrowDown: [0, PAN_STEP * size.h] };
      // + and - as the buttons: a drawing quick to draw is drawn anew at a press; a slow one
      // glides there by the compositor, drawn anew SETTLE_MS after the last press. A key held
      // down repeats, and an arrow only moves the drawing (never blurred): both move it live
      // at any size, drawn anew once they rest (a redraw per repeat would stutter).
      var step = self.slow() ? "glide" : event.repeat ? true : false;
      if (moves[event.key]) self.pan(moves[event.key][0], moves[event.key][1], step || true);
      else if (event.key === "+" || event.key === "=") self.zoom(1 / ZOOM_STEP, undefined, undefined, step);
      else if (event.key === "-" || event.key === "_") self.zoom(ZOOM_STEP, undefined, undefined, step);
      else if (event.key === "0") self.fit(self.slow());
      else return;
      event.preventDefault();  // the arrows would scroll the page too
    });

    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        if (!self.view) return;
        self.sizeStage();
        if (self.fitted) self.fit(); else self.apply();
      }).observe(stage);
    }
  };

  // a plain wheel over the graph scrolls the page; say once in a while how to zoom instead
  Viewer.prototype.hint = function () {
    var hint = this.root.querySelector("[data-wheel-hint]");
    if (!hint) return;
    hint.textContent = (MAC ? "⌘" : "Ctrl") + " + scroll to zoom";
    hint.hidden = false;
    clearTimeout(this.hintTimer);
    this.hintTimer = setTimeout(function () { hint.hidden = true; }, 1200);
  };

  Viewer.prototype.bindGraph = function (svg) {
    var self = this, edges = {};
    // one listener for the whole graph: the box under the pointer, or none. (A box lifted
    // above the veil has left the document for an instant, so the browser forgets it was
    // under the pointer: its own mouseleave never came.)
    svg.addEventListener("mouseover", function (event) {
      var node = event.target.closest && event.target.closest("g.node");
      self.highlight(svg, node ? node.getAttribute("data-entity-id") : null);
    });
    svg.addEventListener("mouseleave", function () { self.highlight(svg, null); });
    this.nodes.forEach(function (node) {
      var id = node.getAttribute("data-entity-id");
      node.addEventListener("click", function () {
        if (self.moved) return;
        if (self.root.querySelector("[data-depth-select]")) self.show({ focus: id });
      });
    });
    this.edges.forEach(function (edge) {
      [edge.getAttribute("data-source"), edge.getAttribute("data-target")].forEach(function (end) {
        (edges[end] = edges[end] || []).push(edge);
      });
    });
    this.edgesOf = edges;  // each node's edges, for the hover
  };

  /* Hovering a box lights it, its edges and the boxes at their other ends, and veils the
     rest: a white sheet at three quarters over the whole graph (as the rest at a quarter
     opacity looks), with the lit elements moved above it and put back after. Dimming each
     element (`opacity` on every box and edge) restyled and repainted all of them on each
     hover: some 18,000 at 3,000 services, 200 ms before the highlight showed. */
  Viewer.prototype.highlight = function (svg, id) {
    if (svg === this.litSvg && id === this.litId) return;  // the same box, moved over again
    this.litSvg = svg;
    this.litId = id;
    var lifted = this.lifted || [];
    for (var i = lifted.length - 1; i >= 0; i--) {  // back where they were, in order
      lifted[i].el.classList.remove("lit");
      lifted[i].parent.insertBefore(lifted[i].el, lifted[i].next);
    }
    this.lifted = [];
    var veil = svg.querySelector("[data-hover-veil]");
    if (veil) veil.remove();
    if (!id || !this.svg() || this.svg() !== svg) return;
    var own = this.nodeById[id], byId = this.nodeById;
    if (!own || !own.isConnected) return;
    var lit = [], nodes = {};
    (this.edgesOf[id] || []).forEach(function (edge) {
      if (edge.isConnected) lit.push(edge);  // one out of the page is out of view
      [edge.getAttribute("data-source"), edge.getAttribute("data-target")].forEach(function (end) {
        if (end !== id) nodes[end] = true;
      });
    });
    Object.keys(nodes).forEach(function (end) {
      var node = byId[end];
      if (node && node.isConnected) lit.push(node);
    });
    lit.push(own);  // last: on top
    // the title and the legend stay as they are: they are no part of the graph
    var plain = svg.querySelectorAll(":scope > g.header, :scope > g.legend");
    var box = this.full;
    veil = document.createElementNS(SVG_NS, "rect");
    [["data-hover-veil", ""], ["pointer-events", "none"], ["x", box.x], ["y", box.y],
     ["width", box.w], ["height", box.h], ["fill", "#fff"], ["opacity", ".75"]]
      .forEach(function (pair) { veil.setAttribute(pair[0], pair[1]); });
    svg.append(veil);
    // moved whole (a box's group keeps its classes), so the SVG's own styles still apply
    var moved = this.lifted;
    lit.forEach(function (el) {
      moved.push({ el: el, parent: el.parentNode, next: el.nextSibling });
      el.classList.add("lit");
      svg.append(el);
    });
    plain.forEach(function (el) {
      moved.push({ el: el, parent: el.parentNode, next: el.nextSibling });
      svg.append(el);
    });
  };

  // what the focus is called: the name it was chosen by, the graph's own label for it (its
  // tooltip's first line), the project's name for it now (the page's entity-names: a focus
  // from the address on a moment that does not hold it) or, for a service deleted since, the
  // last it had in the page's history, else its id without the kind
  // ("category--commerce": "commerce")
  var currentNames = null, pastEvents = null;
  function currentName(id) {
    if (currentNames === null) {
      var data = document.getElementById("entity-names");
      try { currentNames = data ? JSON.parse(data.textContent) : {}; } catch (e) { currentNames = {}; }
    }
    if (Object.prototype.hasOwnProperty.call(currentNames, id)) return currentNames[id];
    // a service deleted since: the name it had last, in the history the page holds
    if (id.indexOf("service--") === 0) {
      if (pastEvents === null) {  // read once, as the names above
        var timeline = document.getElementById("timeline-data");
        try { pastEvents = timeline ? JSON.parse(timeline.textContent) : []; } catch (e) { pastEvents = []; }
      }
      for (var i = 0; i < pastEvents.length; i++) {  // newest first
        if ("service--" + pastEvents[i].slug === id) return pastEvents[i].name;
      }
    }
    // a shared page has no names of its own: those its Show menu lists (as the server
    // named the focus in the page)
    var option = document.querySelector('[data-group-filter] option[value="' + CSS.escape(id) +
                                        '"][data-name]:not([data-shown-focus])');
    return option ? option.getAttribute("data-name") : null;
  }
  Viewer.prototype.nameOf = function (ids, given) {
    if (given) return given;
    var byId = this.nodeById || Object.create(null);
    return ids.split(",").map(function (id) {
      var title = byId[id] && byId[id].querySelector("title");
      return title ? title.textContent.split("\n")[0]
        : currentName(id) || id.replace(/^[a-z]+--/, "");
    }).join(", ");
  };

  // what kind of thing the focus is ("category", "flow", ...): a category and a flow may
  // share a name; "" for several of different kinds
  Viewer.prototype.kindOf = function (ids) {
    var kinds = ids.split(",").map(function (id) { return KINDS[id.split("--")[0]] || ""; });
    return kinds.every(function (kind) { return kind === kinds[0]; }) ? kinds[0] : "";
  };

  // the focused boxes stand out from the neighbours drawn around them
  Viewer.prototype.markFocus = function () {
    var svg = this.svg();
    if (!svg) return;
    this.nodes.forEach(function (node) { node.classList.remove("focused"); });
    if (!this.shown.focus) return;
    var byId = this.nodeById;
    this.shown.focus.split(",").forEach(function (id) {
      if (byId[id]) byId[id].classList.add("focused");
    });
  };

  /* Every control shows the state on screen (not the one last asked for, which may have
     failed or been overtaken), then the page hears of it. */
  // `failed`: the drawing asked for could not be shown; this is the one still on screen
  Viewer.prototype.showState = function (failed) {
    var root = this.root, shown = this.shown;
    var name = root.querySelector("[data-focus-name]");
    var kind = root.querySelector("[data-focus-kind]");
    var clear = root.querySelector("[data-clear-focus]");
    var kindName = shown.focus ? this.kindOf(shown.focus) : "";
    if (name) {  // a long name ends in an ellipsis: the whole of it is its title
      name.textContent = shown.focus ? this.nameOf(shown.focus, shown.focusName) : "whole project";
      name.title = name.textContent;
    }
    if (kind) { kind.textContent = kindName; kind.hidden = !kindName; }
    if (clear) clear.hidden = !shown.focus;
    // depth only applies around a focus: without one it is off, and says why
    var depth = root.querySelector("[data-depth-select]");
    if (depth) {
      depth.value = shown.depth;
      depth.disabled = !shown.focus;
      depth.title = shown.focus ? DEPTH_ON : DEPTH_OFF;
      var depthLabel = root.querySelector("[data-depth-label]");
      if (depthLabel) depthLabel.title = depth.title;
    }
    this.markFocus();
    var at = root.querySelector("[data-at]");
    if (at) at.value = shown.at ? shown.at.slice(0, 19) : "";
    root.dispatchEvent(new CustomEvent("archsvc:shown", { bubbles: true, detail: {
      focus: shown.focus, name: shown.focus ? this.nameOf(shown.focus, shown.focusName) : "",
      kind: kindName, depth: shown.depth, at: shown.at, failed: failed === true,
      nodes: this.nodes || [] } }));  // every box, those a big drawing keeps out of the page too
  };

  // redraw with some of focus, focusName, depth and at changed
  Viewer.prototype.show = function (change) {
    if ("focus" in change) { this.focus = change.focus; this.focusName = change.focusName || ""; }
    if ("depth" in change) this.depth = change.depth;
    if ("at" in change) this.at = change.at;
    this.load();
  };

  /* The shape the drawing will be shown in, sent with every read of it (`aspect`, width over
     height, 0.2 to 5): the server folds a long drawing into rows toward it, so that the whole
     of it can be read in the frame. The frame's width over the most height it can take: in a
     page the stylesheet's bound, what the window leaves under the controls (app.css
     .graph-sized: max(12rem, 100vh - 12rem); the cap a drawing's own height adds is what is
     being chosen, so left out), in the embed and full screen the frame's own height (its
     window's). Rounded to hundredths: a pixel's difference is no other drawing. */
  Viewer.prototype.aspect = function () {
    var width = this.stage.clientWidth, height = this.stage.clientHeight;
    if (this.stage.classList.contains("graph-sized") && document.fullscreenElement !== this.root) {
      var rem = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
      height = Math.max(12 * rem, window.innerHeight - 12 * rem);
    }
    if (!width || !height) return "";  // not laid out (a hidden tab): the server's default
    return String(Math.round(clamp(width / height, 0.2, 5) * 100) / 100);
  };

  Viewer.prototype.load = function () {
    var self = this, params = new URLSearchParams(), request = ++this.requests;
    var wanted = { focus: this.focus, focusName: this.focusName, depth: this.depth, at: this.at };
    if (wanted.focus) { params.append("filteredIds", wanted.focus); params.set("depth", wanted.depth); }
    if (wanted.at) params.set("at", wanted.at);
    // the whole project keeps one shape for as long as the page shows it: its drawing of a
    // moment follows the one before only within one shape, so a step in time asks for the
    // shape of the drawing shown (the server's own, 16:9, for a drawing in the page as it
    // came); a focus, laid out afresh, takes the frame's
    if (!wanted.focus && this.wholeAspect === undefined) {
      this.wholeAspect = this.svg() ? "" : this.aspect();
    }
    var aspect = wanted.focus ? this.aspect() : this.wholeAspect;
    if (aspect) params.set("aspect", aspect);  // last: the address reads as before up to it
    this.status.textContent = "Loading…";
    fetch(this.url + (params.toString() ? "?" + params : ""), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          return response.text().then(function (text) {
            // the API's error body carries a sentence for people; a plain 400 page is one
            var message = text;
            try { message = JSON.parse(text).message || text; } catch (ignored) { /* not JSON */ }
            if (response.status === 401) message = "Your session ended: log in again to see the graph.";
            throw new Error(message || response.statusText);
          });
        }
        return response.text();
      })
      .then(function (text) {
        if (request !== self.requests) return;  // a later request is on its way
        // read by the HTML parser, inert in a template: at 3,000 services 0.2 s where the
        // XML parser took 0.5 and copying its document into the page 0.1 more
        var template = document.createElement("template");
        template.innerHTML = text;
        var svg = template.content.firstElementChild;
        if (!svg || svg.namespaceURI !== SVG_NS || svg.localName !== "svg") {
          throw new Error("The graph could not be read.");
        }
        // stepping through time keeps the place and zoom the member chose; another focus
        // or depth is another drawing, and opens as a new one
        var keep = self.view && !self.fitted && self.shown.focus === wanted.focus &&
          self.shown.depth === wanted.depth
          ? { cx: self.view.cx, cy: self.view.cy, scale: self.view.scale } : null;
        self.status.textContent = "";
        var redraw = !!self.svg();  // not the page's first drawing, fetched as it opened
        // the same view at another moment: its boxes glide from where they were
        var places = redraw && self.shown.focus === wanted.focus &&
          self.shown.depth === wanted.depth && self.shown.at !== wanted.at
          ? self.placesOnScreen() : null;
        self.shown = wanted;
        self.attach(keep, document.adoptNode(svg));
        self.glideFrom(places);
        self.sayMissing();
        if (redraw) self.sayShown();
      })
      .catch(function (error) {
        if (request !== self.requests) return;
        self.status.textContent = error.message;
        // the graph on screen is still the last one shown: so are the controls
        self.focus = self.shown.focus; self.focusName = self.shown.focusName;
        self.depth = self.shown.depth; self.at = self.shown.at;
        self.showState(true);
      });
  };

  /* A time step (the same focus and depth at another moment) is animated: each box in both
     drawings glides from where it was on screen to its new place, the boxes new at that
     moment fade in, and so do the edges (drawn where the boxes end up: shown at once, they
     would leave the boxes still on their way). Boxes gone at that moment just go: a copy of
     each fading out would be a second box of its id in the page for a moment, which the
     hover, the page's counts and a screen reader would take for one still there. Not with
     less motion asked for, nor on a big drawing (slow, BIG_BOXES or more): there each box's
     transform is styled and painted on the main thread every frame (SVG boxes are no layers
     of the compositor's), a redraw's 200-400 ms at every frame of the glide, and most of its
     boxes are out of the page anyway (cull).
     `placesOnScreen`: where each box of the drawing shown is, in the frame's pixels. */
  Viewer.prototype.placesOnScreen = function () {
    var d = this.drawn;
    if (!d || this.slow() || REDUCED_MOTION.matches) return null;
    var rects = this.rects(), places = Object.create(null);
    for (var i = 0; i < rects.length; i++) {
      var r = rects[i];
      places[r.id] = { x: d.w / 2 + (r.x + r.w / 2 - d.cx) / d.scale,
                       y: d.h / 2 + (r.y + r.h / 2 - d.cy) / d.scale };
    }
    return places;
  };

  // the drawing just shown, its boxes started from `places` (placesOnScreen)
  Viewer.prototype.glideFrom = function (places) {
    var d = this.drawn, svg = this.svg();
    if (!places || !d || !svg || this.slow() || REDUCED_MOTION.matches) return;
    var rects = this.rects(), moving = [];
    for (var i = 0; i < rects.length; i++) {
      var r = rects[i], node = this.nodeById[r.id], was = places[r.id];
      if (!node) continue;
      if (was) {  // moved by as much as it moved on screen, in the new drawing's units
        var dx = (was.x - d.w / 2) * d.scale - (r.x + r.w / 2 - d.cx);
        var dy = (was.y - d.h / 2) * d.scale - (r.y + r.h / 2 - d.cy);
        if (Math.abs(dx) + Math.abs(dy) < d.scale) continue;  // under a pixel: stays
        node.style.transform = "translate(" + dx.toFixed(1) + "px, " + dy.toFixed(1) + "px)";
      } else {
        node.style.opacity = "0";
      }
      moving.push(node);
    }
    // no box moved nor came (a step that only adds an edge, say): nothing blinks
    if (!moving.length) return;
    var edges = svg.querySelector("g.edges");
    if (edges) { edges.style.opacity = "0"; moving.push(edges); }
    // the start styled before the end is set, else there is nothing to go from (the drawing
    // is laid out here instead of in the next frame: no more work, only sooner)
    svg.getBoundingClientRect();
    moving.forEach(function (el) {
      el.style.transition = TIME_STEP;
      el.style.transform = "";
      el.style.opacity = "";
    });
    clearTimeout(this.glideTimer);
    this.glideTimer = setTimeout(function () {
      moving.forEach(function (el) { el.style.transition = ""; });
    }, TIME_STEP_MS + 100);
  };

  Viewer.prototype.bindControls = function () {
    var self = this, root = this.root;
    root.querySelectorAll("[data-zoom]").forEach(function (button) {
      button.addEventListener("click", function () {
        var how = button.getAttribute("data-zoom");
        // a drawing quick to draw is drawn anew at once; a slow one (thousands of services:
        // 200 ms a press) is scaled by the compositor in the next frame, then drawn sharp
        if (how === "fit") { self.fit(self.slow()); return; }
        var live = self.slow() ? "glide" : false;
        self.zoom(how === "in" ? 1 / ZOOM_STEP : ZOOM_STEP, undefined, undefined, live);
      });
    });
    // Full screen: the viewer (its toolbar and graph) takes the whole screen, and a big graph
    // is read at a size no page column gives it. Offered where the browser allows it (an
    // embed's host must allow it too).
    var full = root.querySelector("[data-fullscreen]");
    if (full && document.fullscreenEnabled && root.requestFullscreen) {
      full.hidden = false;
      full.addEventListener("click", function () {
        if (document.fullscreenElement === root) document.exitFullscreen();
        else root.requestFullscreen().catch(function () { /* refused: stays in the page */ });
      });
      document.addEventListener("fullscreenchange", function () {
        var on = document.fullscreenElement === root;
        full.title = on ? "Leave full screen (Esc)" : "Full screen (Esc leaves it)";
        full.setAttribute("aria-pressed", on ? "true" : "false");
        if (on) self.stage.style.height = "";  // the stylesheet's: the whole screen
        else self.sizeStage();
        if (self.view) self.start();  // the opening view for that size: whole, or readable
      });
    }
    var depth = root.querySelector("[data-depth-select]");
    if (depth) depth.addEventListener("change", function () {
      if (self.focus) self.show({ depth: depth.value }); else self.depth = self.shown.depth = depth.value;
    });
    var clear = root.querySelector("[data-clear-focus]");
    // "show all" hides itself: the keyboard's place moves to the graph, not to the page's top
    if (clear) clear.addEventListener("click", function () {
      self.show({ focus: "" });
      var stage = root.querySelector("[data-stage]");
      if (stage) stage.focus({ preventScroll: true });
    });
    // typing a date fires a change per complete value (year 0002, 0020, 0202, 2025): the
    // graph is redrawn once the typing pauses, at once on Enter or on leaving the field
    var at = root.querySelector("[data-at]"), atTimer;
    function showTyped() {
      clearTimeout(atTimer);
      var value = at.value ? at.value + (at.value.length === 16 ? ":00" : "") + "Z" : "";
      if (value && value.slice(0, 4) < "1970") return;  // a year still being typed
      // a moment still to come is the project as it is now (as the API reads it): shown as
      // now, not "as of" a date with the tables saying "then"
      if (value && Date.parse(value) > Date.now()) {
        value = "";
        if (!self.at) at.value = "";  // now is shown or on its way: nothing else clears it
      }
      // against what was last asked for, which a redraw on its way may not show yet
      if (value !== (self.at || "").slice(0, 19) + (value ? "Z" : "")) self.show({ at: value });
    }
    if (at) {
      at.addEventListener("change", function () { clearTimeout(atTimer); atTimer = setTimeout(showTyped, 700); });
      at.addEventListener("blur", function () { if (atTimer) showTyped(); });
      at.addEventListener("keydown", function (event) { if (event.key === "Enter") showTyped(); });
    }
    var now = root.querySelector("[data-now]");
    if (now) now.addEventListener("click", function () { self.show({ at: "" }); });
  };

  document.querySelectorAll("[data-graph-viewer]").forEach(function (root) {
    var viewer = new Viewer(root);
    // the history slider passes exact instants (a datetime input keeps only seconds); a
    // viewer without history (a shared page) never shows the past
    document.addEventListener("archsvc:at", function (event) {
      if (!viewer.history) return;
      viewer.show({ at: (event.detail && event.detail.at) || "" });
    });
    // the page's address asks for a view: a focus (and its depth) and a moment, at once;
    // `whole` (Back and Forward to another entry of the page's history): what it leaves
    // out is the whole project, now
    document.addEventListener("archsvc:view", function (event) {
      var detail = event.detail || {}, change = {};
      var focusable = root.querySelector("[data-depth-select]");
      if (detail.focus && focusable) {
        change.focus = detail.focus;
        change.focusName = "";
        if (detail.depth) change.depth = detail.depth;
        else if (detail.whole) change.depth = "1";
      } else if (detail.whole && focusable) {
        change.focus = "";
        change.focusName = "";
        change.depth = "1";  // as the same address opened anew: the depth of no focus
      }
      if (detail.at && viewer.history) change.at = detail.at;
      else if (detail.whole && viewer.history) change.at = "";
      // the server drew that view in the page already (or it is on its way): the page's
      // controls only hear of it
      Object.keys(change).forEach(function (key) {
        if (key !== "focusName" && change[key] === viewer[key]) delete change[key];
      });
      if (Object.keys(change).length > ("focusName" in change ? 1 : 0)) viewer.show(change);
      else viewer.showState();
    });
    // other parts of the page (the chat's cited entities, the Show menu) can focus the graph
    document.addEventListener("archsvc:focus", function (event) {
      var detail = event.detail || {};
      if (!root.querySelector("[data-depth-select]")) return;
      if (!detail.id && !detail.clear) return;
      var change = { focus: detail.id || "", focusName: detail.name || "" };
      // the chat's answers are about the project now: what it cites is shown now too (at
      // a past moment it may not exist, and the graph would go empty)
      if (detail.now && viewer.at) change.at = "";
      viewer.show(change);
    });
  });
})();
