/* The project page's tools around the graph: focus on a category, owner or flow; travel
   back in time (the graph is redrawn as it was, the services changed since are outlined,
   and the tables list what the project held then); download the SVG and copy the Mermaid
   text of the graph as shown: the same focus, depth and moment as the viewer. */
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
  var menu = group ? window.ArchsvcFocusMenu(group) : null;
  var lists = document.querySelector("[data-entity-lists]");

  // a table's box is a Tab stop only while it scrolls sideways: a keyboard user scrolls it
  // from there; one that fits was a stop that did nothing (served with it, for no script)
  document.querySelectorAll(".table-scroll").forEach(function (box) {
    function fits() {
      if (box.scrollWidth > box.clientWidth + 1) box.setAttribute("tabindex", "0");
      else if (document.activeElement !== box) box.removeAttribute("tabindex");
    }
    if (!window.ResizeObserver) return;  // never told of a change: the served stop stays
    var watch = new ResizeObserver(fits);
    watch.observe(box);
    if (box.firstElementChild) watch.observe(box.firstElementChild);  // rows come and go
    fits();
  });
  // the tables' names focus the graph on them (their rows are redrawn for a past moment)
  lists.addEventListener("click", function (event) {
    // an Edit link leads back, after Save or Cancel, to the view shown when it was followed
    var edit = event.target.closest("a[href*='/edit']");
    if (edit) {
      var address = new URL(edit.href);
      address.searchParams.set("next", window.location.pathname + window.location.search);
      edit.href = address.pathname + address.search;
    }
    var button = event.target.closest("[data-focus-id]");
    if (!button) return;
    focus(button.getAttribute("data-focus-id"), button.textContent);
    // the keyboard's place goes with the eye, to the graph (it stayed on the button, now far
    // off-screen: the next Tab went back into the table), and what it shows is said
    // (graph-viewer.js)
    var stage = viewerRoot.querySelector("[data-stage]");
    if (stage) stage.focus({ preventScroll: true });
    bringGraphIntoView();
  });
  function bringGraphIntoView() {
    var smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    viewerRoot.scrollIntoView({ behavior: smooth ? "smooth" : "auto", block: "start" });
  }

  var slider = tools.querySelector("[data-timeline]");
  var label = tools.querySelector("[data-timeline-label]");
  var count = timeline.length;
  var shownAt = "";  // the instant the graph shows, "" for now
  var dragging = false;  // the slider's thumb is being moved
  var shown = { focus: "", name: "", depth: "", at: "" };  // what the viewer shows
  var changedLegend = document.querySelector("[data-changed-legend]");
  var nowNote = document.querySelector("[data-now-note]");

  // instants compare as text once they have the same shape: seconds, six decimals, Z
  function instant(at) {
    var match = /^(.{19})(\.\d+)?Z$/.exec(at);
    return match ? match[1] + ((match[2] || ".") + "000000").slice(0, 7) + "Z" : at;
  }
  // A moment as the labels say it: to the minute, or to the second (the millisecond, the
  // microsecond) when a change of the timeline lies in the same minute (second…), so that
  // two changes a few seconds apart do not read alike; most labels stay short for a phone.
  var STAMP_LENGTHS = [16, 19, 23, 26];  // of instant(): minute, second, millisecond, microsecond
  function stamp(at) {
    var exact = instant(at), precision = 0;
    timeline.forEach(function (event) {
      var other = instant(event.at);
      while (precision < STAMP_LENGTHS.length - 1 && other !== exact &&
             other.slice(0, STAMP_LENGTHS[precision]) === exact.slice(0, STAMP_LENGTHS[precision])) {
        precision += 1;
      }
    });
    return exact.slice(0, STAMP_LENGTHS[precision]).replace("T", " ");
  }
  // the change first: the label's room is cut at its end, and the moment is in As of too
  function describe(event) {
    return event.name + " " + event.action + " · " + stamp(event.at);
  }
  // the slider's position for an instant: the newest change at or before it (what is shown
  // is the state that change left), the oldest for an instant before them all. Its last
  // position, the state the newest change left, is now: one step back is the project
  // before the newest change (a position for each would show the same state twice)
  function positionOf(at) {
    if (!at) return count - 1;
    for (var index = count - 1; index >= 0; index--) {
      if (instant(timeline[count - 1 - index].at) <= instant(at)) return index;
    }
    return 0;
  }
  function labelFor(index, at) {
    if (index >= count - 1 && !at) return "now";
    var event = timeline[count - 1 - index];
    if (at && instant(at) < instant(event.at)) {
      // further back than the changes read so far: the moment itself says more
      if (index === 0 && !timelineComplete) return "as of " + stamp(at);
      return "before " + describe(event);
    }
    return describe(event);
  }
  // the label has a fixed room (a long name would reflow the row): the full text is its title
  function setLabel(text) {
    label.textContent = text;
    label.title = text;
    if (slider) slider.setAttribute("aria-valuetext", text);
  }
  // the slugs, as they were at `at`, of the services changed after it
  function changedSince(at) {
    var changed = {};
    if (!at) return changed;
    // a service is drawn under the slug it had at the moment shown (its latest change by
    // then), which a later rename does not change
    var slugThen = {};
    timeline.forEach(function (event) {  // newest first
      if (instant(event.at) <= instant(at) && !(event.service in slugThen)) {
        slugThen[event.service] = event.slug;
      }
    });
    timeline.forEach(function (event) {
      if (instant(event.at) > instant(at)) changed[slugThen[event.service] || event.slug] = true;
    });
    return changed;
  }
  // over every box of the drawing shown (archsvc:shown), those out of the page included: a
  // big drawing keeps out of the page what its view does not reach, and brings it back marked
  var shownNodes = [];
  function markChanges() {
    if (!slider) return;
    var changed = changedSince(shownAt);
    // before the first archsvc:shown this script heard, the boxes in the page
    var nodes = shownNodes.length ? shownNodes
      : Array.prototype.slice.call(viewerRoot.querySelectorAll(".graph-stage g.node"));
    nodes.forEach(function (node) {
      var id = node.getAttribute("data-entity-id") || "";
      var slug = id.indexOf("service--") === 0 ? id.slice("service--".length) : null;
      node.classList.toggle("changed-since", slug !== null && changed[slug] === true);
    });
  }
  // Arrow keys step the slider a change at a time, and every step is a `change`: ten
  // presses were ten drawings of the whole project asked at once (on 1,000 services 2 MB
  // each, seconds of the server's time, which spent the organization's drawing budget and
  // ended in a 429). Stepped by keys, the graph follows once they rest, as the Show menu's
  // does; a release of the thumb, or leaving the slider, is at once.
  var KEYS_SETTLE = 450;
  var keyed = 0;  // when a key last moved the slider
  var keysWait = null;  // the redraw waiting for the keys to rest
  function goTo(index) {
    var value = index >= count - 1 ? "" : timeline[count - 1 - index].at;
    readEarly(value);
    document.dispatchEvent(new CustomEvent("archsvc:at", { detail: { at: value } }));
  }
  function keysRested() {
    if (!keysWait) return false;
    clearTimeout(keysWait);
    keysWait = null;
    dragging = false;
    goTo(Number(slider.value));
    return true;
  }
  if (slider) {
    // while dragging, the label previews the change under the thumb; on release the graph
    // is redrawn, and the slider then follows what is shown (see archsvc:shown)
    slider.addEventListener("input", function () {
      dragging = true;
      setLabel(labelFor(Number(slider.value), ""));
    });
    slider.addEventListener("keydown", function (event) {
      if (/^(Arrow|Page|Home|End)/.test(event.key)) keyed = Date.now();
    });
    slider.addEventListener("blur", function () {
      if (!keysRested()) { dragging = false; growSlider(); }
    });
    slider.addEventListener("change", function () {
      if (keysWait) clearTimeout(keysWait);
      keysWait = null;
      if (Date.now() - keyed < 200) {
        dragging = true;  // the thumb stays where the keys left it meanwhile
        keysWait = setTimeout(keysRested, KEYS_SETTLE);
        return;
      }
      dragging = false;
      goTo(Number(slider.value));
    });
  }

  // after every redraw, however it was asked for (slider, As of, Now, a click in the graph,
  // the chat, show all): the Show menu, the slider and its label say what the graph shows
  function follow(state) {
    shownAt = state.at || "";
    shownNodes = state.nodes || [];
    if (!keysWait) dragging = false;  // (keys still moving the thumb: it stays with them)
    growSlider();
    remember(state);
    shown = { focus: state.focus || "", name: state.name || "", depth: state.depth || "", at: shownAt };
    if (slider && !keysWait) {
      var index = positionOf(shownAt);
      slider.value = String(index);
      setLabel(labelFor(index, shownAt));
    }
    if (changedLegend) changedLegend.hidden = !shownAt;
    showTables(shownAt);
    download.href = graphUrl("svg");
    showGroup(shown);
    markChanges();
    var at = shownAt;
    legendFor(at, true);
    if (!covers(at)) {
      reach(at).then(function () {
        if (shownAt !== at) return;
        markChanges();
        legendFor(at);
      });
    } else if (at && slider && positionOf(at) === 0) {
      readOlder().catch(function () {});  // at the slider's left end: room for further back
    }
  }
  // the Show menu says what the graph is focused on, even a focus it does not list
  function showGroup(state) {
    if (menu) menu.show(state);
  }
  // the Show menu lists the categories, owners and flows of the moment shown
  var pageGroups = group ? Array.prototype.slice.call(group.querySelectorAll("optgroup")) : [];
  function fillGroups(entities) {
    if (!group) return;
    var chosen = group.value;  // perhaps a choice whose graph is still on its way
    group.querySelectorAll("optgroup").forEach(function (old) { old.remove(); });
    if (!entities) {  // as the page was served
      pageGroups.forEach(function (optgroup) { group.append(optgroup); });
      keepChoice(chosen);
      return;
    }
    [["Category", entities.categories], ["Owner", entities.owners], ["Flow", entities.flows]].forEach(function (kind) {
      var ids = Object.keys(kind[1] || {});
      if (!ids.length) return;
      var optgroup = element("optgroup", { label: kind[0] });
      ids.forEach(function (id) {
        var name = kind[1][id].name;
        optgroup.append(element("option", { value: id, "data-name": name }, name + " (" + kind[0].toLowerCase() + ")"));
      });
      group.append(optgroup);
    });
    keepChoice(chosen);
  }
  function keepChoice(chosen) {
    showGroup(shown);
    var listed = Array.prototype.some.call(group.options, function (option) { return option.value === chosen; });
    if (listed) group.value = chosen;
  }
  // The tables and the service count say what the project held at the moment the graph
  // shows: its entities then, read from the API (cached there like the renders). Back at
  // now they are read again (a colleague may have changed the project since the page came).
  var bodies = { services: lists.querySelector('[data-rows="services"]'), topics: lists.querySelector('[data-rows="topics"]') };
  var countLabel = document.querySelector("[data-service-count]");
  var atLabels = lists.querySelectorAll("[data-tables-at]");
  var timelineComplete = lists.hasAttribute("data-timeline-complete");
  var nowSlugs = {};
  // the moment of the rows (the count, the Show menu's groups) the page was served with: a
  // past moment the address asked for, drawn by the server, else "" (now)
  var servedAt = lists.getAttribute("data-rows-at") || "";
  lists.getAttribute("data-now-slugs").split(" ").forEach(function (slug) { if (slug) nowSlugs[slug] = true; });
  // The tables list TABLE_ROWS rows each (as the server's TABLE_ROWS) and say how many more
  // there are; Show all lists the rest, and Find narrows both to the rows whose names,
  // owner or topics hold every word typed. Rows are built only when listed: a project of
  // 3,000 services does not build 6,000 rows to show 100.
  var TABLE_ROWS = 100;
  var COLUMNS = { services: 5, topics: 3 };
  var NOUNS = { services: "service", topics: "topic" };
  var finder = lists.querySelector("[data-table-find]");
  var findInput = finder.querySelector("input");
  // "Add a service" leads back to the view as it is when followed (focus, depth, moment)
  var addService = document.querySelector("[data-add-service]");
  if (addService) {
    addService.addEventListener("click", function () {
      addService.href = addService.pathname + "?next=" +
        encodeURIComponent(window.location.pathname + window.location.search);
    });
  }
  var findCount = finder.querySelector("[data-find-count]");
  // the count is said once typing pauses (it was said at every key: 13 counts for
  // "orders.placed")
  var findSaid = finder.querySelector("[data-find-said]");
  var FIND_SAY_MS = 700;
  var mores = { services: lists.querySelector('[data-more="services"]'), topics: lists.querySelector('[data-more="topics"]') };
  var showAll = { services: false, topics: false };
  // the rows the page was served with: all of them, or the first TABLE_ROWS of `total`
  function servedModel(kind) {
    var rows = Array.prototype.slice.call(bodies[kind].children);
    var listed = rows.filter(function (row) { return row.querySelector("[data-focus-id]"); });
    var total = Number(bodies[kind].getAttribute("data-total"));
    // what Find reads in a row: as rowsAt writes it (the names, a service's slug and owner,
    // the topics), not the Edit link's text
    function text(row) {
      var cells = Array.prototype.map.call(row.cells, function (cell) { return cell.textContent; });
      if (kind === "topics") return cells.join(" ");
      var slug = row.getAttribute("data-slug") || "";  // as the moment listed has it
      return [cells[0], slug, cells[3] === "\u2014" ? "" : cells[3], cells[1], cells[2]].join(" ");
    }
    return {
      items: listed.map(function (row) {
        var name = row.querySelector("[data-focus-id]").textContent.trim().toLowerCase();
        return { text: text(row).toLowerCase(), name: name, row: row };
      }),
      total: total,
      complete: listed.length >= total,
      empty: listed.length ? null : rows[0]
    };
  }
  var pageRows = {
    services: servedModel("services"),
    topics: servedModel("topics"),
    count: servedAt ? countLabel.textContent : countLabel.getAttribute("data-count-now")
  };
  var tables = pageRows;  // what the tables list: the served rows, or the entities of a moment
  // The page comes with the newest 100 changes. A moment older than they reach reads older
  // pages of the history (as many changes each, at most HISTORY_PAGES in all) until every change
  // made since it is known, and the slug each service renamed since had at it: what is
  // outlined, marked in the tables and edited from them then holds for any moment. The
  // slider grows to the left with what is read, and its left end reads the next page.
  // pages as big as the page's own (the server's first page: only an incomplete one reads on)
  var HISTORY_SIZE = timeline.length, HISTORY_PAGES = 50;
  var historyRead = 1;  // pages of the history the timeline holds
  var historyReading = null;  // the page on its way
  var seen = {};
  timeline.forEach(function (event) { seen[event.snapshot] = true; });
  var changedText = document.querySelector("[data-changed-text]");
  function covers(at) {
    if (!at || timelineComplete) return true;
    var oldest = timeline[timeline.length - 1];
    if (!oldest || instant(oldest.at) >= instant(at)) return false;
    var before = {}, renamed = {};
    timeline.forEach(function (event) {
      if (instant(event.at) <= instant(at)) before[event.service] = true;
      else if (event.action === "renamed") renamed[event.service] = true;
      else if (event.action === "created") before[event.service] = true;  // not there then
    });
    return Object.keys(renamed).every(function (service) { return before[service]; });
  }
  function readOlder() {
    if (timelineComplete || historyRead >= HISTORY_PAGES) return Promise.resolve(false);
    if (!historyReading) {
      historyReading = readHistoryPage().finally(function () { historyReading = null; });
    }
    return historyReading;
  }
  function readHistoryPage() {
    return fetch("/v1/projects/" + project + "/history?size=" + HISTORY_SIZE + "&page=" + historyRead, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.json();
      })
      .then(function (body) {
        historyRead += 1;
        var oldest = timeline.length ? instant(timeline[timeline.length - 1].at) : Infinity;
        var added = 0;
        body.data.forEach(function (event) {
          // each change made since the page came moves every page down by one: what it
          // brings back is held already, or (past a page of them) newer than the oldest
          // held, and no older change: pushed at the old end, such changes put the
          // slider's positions out of time order
          if (seen[event.snapshotId] || instant(event.at) > oldest) return;
          seen[event.snapshotId] = true;
          timeline.push({ at: event.at, service: event.serviceId, slug: event.serviceSlug, name: event.serviceName, action: event.action, snapshot: event.snapshotId });
          added += 1;
        });
        if (body.last || !body.data.length) timelineComplete = true;
        if (!added && !timelineComplete && historyRead < HISTORY_PAGES) return readHistoryPage();
        growSlider();
        return true;
      });
  }
  // the slider takes in what was read, but not under a drag: the thumb would jump away
  // from the change it previews (its positions count from the newest change)
  function growSlider() {
    if (!slider || dragging || count === timeline.length) return;
    count = timeline.length;
    slider.max = String(count - 1);
    var index = positionOf(shownAt);
    slider.value = String(index);
    setLabel(labelFor(index, shownAt));
  }
  // resolves once the timeline says all it can of `at` (a page that cannot be read ends
  // it), or once `at` is no longer shown nor listed in the tables
  function reach(at) {
    if (covers(at) || (at !== shownAt && at !== tablesWanted)) return Promise.resolve();
    return readOlder().then(function (more) { return more ? reach(at) : undefined; }, function () {});
  }
  function legendFor(at, reading) {
    if (!changedText) return;
    var caveat = "";
    if (!covers(at)) {
      caveat = reading ? " (reading older changes\u2026)" : " (of the newest " + timeline.length.toLocaleString("en") + " changes)";
    }
    changedText.textContent = "outlined: changed since" + caveat;
    changedLegend.title = changedText.textContent;  // whole, where its line cuts the caveat
  }

  var tablesWanted = servedAt;  // the moment last asked of the tables, "" for now
  var tablesAsked = 0;  // the newest reading asked for: an older one arriving late is dropped
  var tablesShort = false;  // their marks lack changes the history could not give: read again

  // "3,000 services", as the server writes counts (the thousands filter)
  function plural(n, word) { return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s"); }
  function element(name, attributes, text) {
    var node = document.createElement(name);
    Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function cell(children, empty) {
    var td = element("td");
    children.forEach(function (child) { td.append(child, " "); });
    if (!children.length && empty) td.append(empty);
    return td;
  }
  function tags(names) { return names.map(function (name) { return element("span", { "class": "tag", title: name }, name); }); }
  function none() { return element("span", { "class": "warn" }, "none"); }
  function nameButton(id, name) { return element("button", { type: "button", "class": "link", "data-focus-id": id }, name); }
  function emptyRow(columns, text) {
    var row = element("tr");
    row.append(element("td", { colspan: String(columns), "class": "muted" }, text));
    return row;
  }
  // The editor of a service listed at `at` is under the slug it has now, and there is none
  // once it is deleted. The timeline (the newest events, each with its service's id) says
  // which service held a slug then and what became of it; for a moment older than the
  // timeline reaches, a slug no event in it touched is taken to be the same service's.
  function editorSlugs(at) {
    if (!at) return function (slug) { return slug; };
    var latest = {}, then = {}, touched = {}, holder = {}, since = {};
    timeline.forEach(function (event) {  // newest first
      if (!(event.service in latest)) latest[event.service] = event;
      if (instant(event.at) <= instant(at)) {
        if (!(event.service in then)) then[event.service] = event.action === "deleted" ? null : event.slug;
      } else if (event.action === "created" || event.action === "renamed") {
        since[event.service] = null;  // not there then, or under a slug not known here
      } else if (!(event.service in since)) {
        since[event.service] = event.slug;
      }
      touched[event.slug] = true;
    });
    // a service only updated or deleted since, with no change of its by then in the
    // timeline, had the slug its later changes carry
    Object.keys(since).forEach(function (service) {
      if (since[service] && !(service in then)) then[service] = since[service];
    });
    Object.keys(then).forEach(function (service) { if (then[service]) holder[then[service]] = service; });
    return function (slug) {
      var service = holder[slug];
      if (service) return latest[service].action === "deleted" ? "" : latest[service].slug;
      return !timelineComplete && nowSlugs[slug] && !touched[slug] ? slug : "";
    };
  }
  // by name, then id, as the server lists the rows it sends (views.py)
  function byName(a, b) {
    return a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  }
  function rowsAt(entities, at) {
    var services = entities.services, topics = entities.topics;
    var changed = changedSince(at), editor = editorSlugs(at);
    var name = function (table) { return function (id) { return table[id] ? table[id].name : id; }; };
    var serviceItems = Object.keys(services).map(function (id) {
      var service = services[id];
      var consumes = service.consumes.map(name(topics)), produces = service.produces.map(name(topics));
      var text = [service.name, service.slug, service.owner || ""].concat(consumes, produces).join(" ");
      return { id: id, text: text.toLowerCase(), name: service.name.toLowerCase(), build: function () { return serviceRow(id, service, consumes, produces); } };
    });
    function serviceRow(id, service, consumes, produces) {
      var row = element("tr");
      var edit = element("td");
      var slugNow = editor(service.slug);
      if (slugNow) {
        edit.append(element("a", {
          href: "/projects/" + project + "/services/" + encodeURIComponent(slugNow) + "/edit/?next=" +
            encodeURIComponent(window.location.pathname + window.location.search),
          "aria-label": "Edit " + service.name
        }, "Edit"));
      }
      var named = [nameButton(id, service.name)];
      if (changed[service.slug]) {  // as the graph outlines it
        named.push(element("span", { "class": "changed-swatch", title: "changed since", "aria-hidden": "true" }),
                   element("span", { "class": "visually-hidden" }, "(changed since)"));
      }
      row.append(
        cell(named),
        cell(tags(consumes)),
        cell(tags(produces)),
        element("td", {}, service.owner || "\u2014"),
        edit
      );
      return row;
    }
    serviceItems.sort(byName);
    var topicItems = Object.keys(topics).map(function (id) {
      var topic = topics[id];
      var producers = topic.producers.map(name(services)), consumers = topic.consumers.map(name(services));
      return {
        id: id,
        text: [topic.name].concat(producers, consumers).join(" ").toLowerCase(),
        name: topic.name.toLowerCase(),
        build: function () {
          var row = element("tr");
          row.append(cell([nameButton(id, topic.name)]), cell(tags(producers), none()), cell(tags(consumers), none()));
          return row;
        }
      };
    });
    topicItems.sort(byName);
    var moment = at ? "at that moment" : "yet";
    var model = function (items, kind) {
      return { items: items, total: items.length, complete: true, empty: items.length ? null : emptyRow(COLUMNS[kind], "No " + kind + " " + moment + ".") };
    };
    return {
      services: model(serviceItems, "services"),
      topics: model(topicItems, "topics"),
      count: plural(serviceItems.length, "service") + (at ? " then" : "")
    };
  }
  function findWords() { return findInput.value.toLowerCase().split(/\s+/).filter(Boolean); }
  function matching(kind) {
    var words = findWords(), items = tables[kind].items;
    if (!words.length) return items;
    return items.filter(function (item) {
      return words.every(function (word) { return item.text.indexOf(word) >= 0; });
    });
  }
  function listTable(kind) {
    var model = tables[kind], words = findWords(), matches = matching(kind);
    var listed = showAll[kind] ? matches : matches.slice(0, TABLE_ROWS);
    var rows = listed.map(function (item) { return item.row || (item.row = item.build()); });
    if (!rows.length) {
      rows = [words.length && model.items.length
        ? emptyRow(COLUMNS[kind], "No " + kind + " match \u201c" + findInput.value.trim() + "\u201d.")
        : model.empty || emptyRow(COLUMNS[kind], "No " + kind + ".")];
    }
    bodies[kind].replaceChildren.apply(bodies[kind], rows);
    // what is not listed: more matches than shown, or (served rows) rows not on the page
    var of = words.length ? (model.complete ? matches.length : model.total) : model.total;
    var more = mores[kind];
    more.hidden = listed.length >= of;
    if (!more.hidden) {
      more.querySelector("[data-more-text]").textContent = "Showing " + listed.length.toLocaleString("en") +
        " of " + of.toLocaleString("en") + " " + (words.length && model.complete ? "matching " : "") +
        NOUNS[kind] + (of === 1 ? "" : "s") + ".";
    }
    return matches.length;
  }
  function listTables() {
    var services = listTable("services"), topics = listTable("topics");
    var complete = tables.services.complete && tables.topics.complete;
    findCount.textContent = !findWords().length ? "" : complete
      ? plural(services, "service") + ", " + plural(topics, "topic")
      : readFailed
        ? "Only the first rows could be searched: the rest could not be read. Show all lists them."
        : "Reading every service and topic\u2026";
    clearTimeout(listTables.saying);
    listTables.saying = setTimeout(function () {
      if (findSaid.textContent !== findCount.textContent) findSaid.textContent = findCount.textContent;
    }, FIND_SAY_MS);
  }
  var listedAt = servedAt;  // the moment of the rows the tables list
  function fillTables(model, at) {
    tables = model;
    listedAt = at;
    listTables();
    countLabel.textContent = model.count;
    var when = at ? " as of " + stamp(at) + " UTC" : "";
    atLabels.forEach(function (label) { label.textContent = when; });
  }
  // The page came with the first rows of now only: Find and Show all read the rest (the
  // entities, as a past moment's tables are read), once, when first used.
  var allAsked = "";  // Show all's address, clicked before every row could be listed here
  var readFailed = false;  // the rest of the rows could not be read for Find
  function readAll() {
    if (tables.services.complete && tables.topics.complete) return;
    if (readFailed && !allAsked) return;  // tried: Show all may still ask the server
    if (lists.getAttribute("aria-busy") === "true") return;  // a reading is on its way
    showTables(tablesWanted, true);
  }
  finder.removeAttribute("data-waiting");  // its place was kept: nothing under it moves
  findInput.addEventListener("input", function () {
    showAll.services = showAll.topics = false;
    readAll();
    listTables();
    rememberFind();
  });
  // The address holds what Find holds (?find=), so a reload, a bookmark or a link sent to a
  // colleague lists the same rows
  function rememberFind() {
    if (!window.history.replaceState) return;
    var query = new URLSearchParams(window.location.search), words = findInput.value.trim();
    if (words) query.set("find", words); else query.delete("find");
    var search = query.toString() ? "?" + query : "";
    if (search === window.location.search) return;
    try {
      window.history.replaceState(window.history.state, "", window.location.pathname + search + window.location.hash);
    } catch (error) {}  // typed faster than a browser lets a page rewrite its address: kept next time
  }
  // Enter shows the first match in the graph: the service or topic of exactly the name
  // typed, else a service if one matches, else a topic ("orders.placed" is the topic, not
  // the first service on it)
  findInput.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" || !findWords().length) return;
    event.preventDefault();
    var typed = findInput.value.trim().toLowerCase();
    var named = function (kind) {
      return matching(kind).filter(function (item) { return item.name === typed; })[0];
    };
    var first = named("services") || named("topics") || matching("services")[0] || matching("topics")[0];
    if (!first) return;
    var button = (first.row || (first.row = first.build())).querySelector("[data-focus-id]");
    focus(button.getAttribute("data-focus-id"), button.textContent);
    bringGraphIntoView();  // the cursor stays in Find, for the next words
  });
  // Show all lists every row here; should they not be read, the link's address has the
  // server list them all
  Object.keys(mores).forEach(function (kind) {
    var link = mores[kind].querySelector("[data-show-all]");
    // opened in a new tab or copied, the link is to the view shown now (it was served with
    // the page's first view)
    function current() {
      var all = new URL(window.location.href);
      all.searchParams.set("rows", "all");
      link.href = all.pathname + all.search + new URL(link.href).hash;
    }
    ["pointerdown", "focus", "contextmenu"].forEach(function (type) { link.addEventListener(type, current); });
    link.addEventListener("click", function (event) {
      event.preventDefault();
      showAll[kind] = true;
      if (tables[kind].complete) {
        listTable(kind);
      } else {
        // the server's every row, keeping what the address holds (focus, moment, Find)
        var all = new URL(window.location.href);
        all.searchParams.set("rows", "all");
        all.hash = new URL(link.href).hash;
        allAsked = all.href;
        readAll();
      }
    });
  });
  // `again`: read the moment shown once more, for every row of it (Find, Show all)
  function readEntities(at) {
    return fetch("/v1/projects/" + project + "/entities" + (at ? "?at=" + encodeURIComponent(at) : ""), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.json();
      });
  }
  // A step of the slider asks for the tables' entities of its moment at once, beside the
  // drawing: they were asked once it was drawn, one after the other (on 1,000 services
  // 0.5 s for the drawing, then 0.25 s more for the tables)
  var early = null;  // {at, reading}: the entities of the moment asked for, on their way
  function readEarly(at) {
    if (!at || at === servedAt || at === tablesWanted) return;
    early = { at: at, reading: readEntities(at) };
    early.reading.catch(function () {});  // said when showTables uses it, not before
  }
  function showTables(at, again) {
    if (at === tablesWanted && !tablesShort && !again) return;
    if (at !== tablesWanted) showAll.services = showAll.topics = false;  // another moment
    tablesWanted = at;
    readFailed = false;
    var asked = ++tablesAsked;  // a reading still on its way is now out of date
    nowNote.hidden = true;
    // the page's own rows at once; then as the project is now. A past moment's own rows
    // are the server's, marked from every change: nothing read here would add to them
    if (at === servedAt && !again) {
      fillTables(pageRows, servedAt);
      fillGroups(null);
      if (servedAt) {
        tablesShort = false;
        lists.removeAttribute("aria-busy");
        return;
      }
    } else if (!at && !again) {
      countLabel.textContent = countLabel.getAttribute("data-count-now");  // known: said at once
    }
    lists.setAttribute("aria-busy", "true");
    var reading = early && early.at === at && !again ? early.reading : readEntities(at);
    early = null;
    Promise.all([reading, reach(at)])  // the rows' marks and Edit links need the changes since
      .then(function (read) {
        if (asked !== tablesAsked) return;
        var entities = read[0];
        tablesShort = !covers(at) && !timelineComplete && historyRead < HISTORY_PAGES;
        allAsked = "";
        fillTables(rowsAt(entities, at), at);
        fillGroups(entities);
        lists.removeAttribute("aria-busy");
      })
      .catch(function () {
        if (asked !== tablesAsked) return;
        lists.removeAttribute("aria-busy");
        if (at === listedAt) {  // the rows listed stay; a Show all waiting on them asks the server
          if (again && allAsked) {
            window.location.assign(allAsked);
          } else if (again) {
            readFailed = true;
            listTables();
          }
          allAsked = "";
          return;
        }
        // the rows listed (and the Show menu's groups) stay, and say of which moment they
        // are; so does the count, but at now, whose count the page knows
        if (at) countLabel.textContent = tables.count;
        nowNote.textContent = "The graph shows " + (at
          ? "an earlier moment; the tables below and the count above"
          : "the project now; the tables below") + " could not be read for it and still list the project " +
          (listedAt ? "as of " + stamp(listedAt) + " UTC." : "as it is now.");
        nowNote.hidden = false;
      });
  }

  // the API's rendering of what the viewer shows: the graph endpoints take the same query
  function graphUrl(kind) {
    var params = new URLSearchParams();
    if (shown.focus) {
      params.append("filteredIds", shown.focus);
      params.set("depth", shown.depth || "1");
    }
    if (shown.at) params.set("at", shown.at);
    return "/v1/projects/" + project + "/graph/" + kind + (params.toString() ? "?" + params : "");
  }
  var download = tools.querySelector("[data-download]");
  download.addEventListener("click", function () { download.href = graphUrl("svg"); });
  var copy = tools.querySelector("[data-copy-mermaid]");
  var MERMAID_MAX_TEXT = 50000, MERMAID_MAX_EDGES = 500;  // Mermaid 11's defaults
  var copyTimer;
  function said(text, why) {  // the button says how the copy went, then goes back
    copy.textContent = text;
    copy.title = why || "";
    // and a screen reader is told, the reason too (a title is seldom read)
    var spoken = viewerRoot && viewerRoot.querySelector("[data-said]");
    if (spoken) spoken.textContent = why ? text + ". " + why : text;
    clearTimeout(copyTimer);
    copyTimer = setTimeout(function () { copy.textContent = "Copy Mermaid"; copy.title = ""; }, why ? 4000 : 1500);
  }
  function clipboardWrite(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var area = document.createElement("textarea");
    area.value = text; document.body.appendChild(area); area.select();
    var copied = document.execCommand("copy");
    area.remove();
    return copied ? Promise.resolve() : Promise.reject(new Error("The browser refused to copy."));
  }
  copy.addEventListener("click", function () {
    fetch(graphUrl("mermaid"), { credentials: "same-origin" })
      .then(function (response) {
        return response.text().then(function (text) {
          if (response.ok) return text;
          var message = text;
          try { message = JSON.parse(text).message || text; } catch (ignored) { /* not JSON */ }
          throw new Error(message || response.statusText);
        });
      })
      .then(function (text) { return clipboardWrite(text).then(function () { return text; }); })
      .then(function (text) {
        // Mermaid 11 refuses a text over its default maxTextSize or maxEdges: say so now,
        // not when the paste shows "Maximum text size in diagram exceeded"
        var arrows = (text.match(/ --> /g) || []).length;
        if (text.length <= MERMAID_MAX_TEXT && arrows <= MERMAID_MAX_EDGES) { said("Copied"); return; }
        said("Copied: over Mermaid's limits", "Mermaid draws at most " +
             MERMAID_MAX_TEXT.toLocaleString("en") + " characters and " + MERMAID_MAX_EDGES +
             " arrows unless its maxTextSize and maxEdges settings are raised; this is " +
             text.length.toLocaleString("en") + " characters and " + arrows.toLocaleString("en") +
             " arrows. Show a part of the project first, or use Download SVG.");
      })
      .catch(function (error) { said("Copy failed", error && error.message); });
  });

  // The address says what the graph shows (?focus=, &depth=, &at=), so a reload, a
  // bookmark or a link sent to a colleague opens the same view. Another subject (a new
  // focus, the whole project again, a step into the past or back to now) is a new entry in
  // the browser's history, so Back returns to the view before it, as after following a link;
  // a new depth, or another moment of the past, rewrites the entry shown.
  var VIEW_KEYS = ["focus", "depth", "at"];
  var settling = true;  // the page's first view, its address's, is not shown yet
  var viewHistory = window.ArchsvcViewHistory(group, viewerRoot);
  function remember(state) {
    // a drawing that could not be shown leaves the address and the history as they are
    if (!window.history.replaceState || state.failed) return;
    var query = new URLSearchParams(window.location.search);
    var another = (query.get("focus") || "") !== (state.focus || "") || !query.get("at") !== !state.at;
    VIEW_KEYS.forEach(function (key) { query.delete(key); });
    if (state.focus) {
      query.set("focus", state.focus);
      if (state.depth !== undefined && state.depth !== "") query.set("depth", String(state.depth));
    }
    if (state.at) query.set("at", state.at);
    viewHistory.write(query.toString() ? "?" + query : "", another && !settling);
  }
  // the view an address asks for, of what this page can show
  function viewOf(search) {
    var asked = new URLSearchParams(search);
    var view = { at: asked.get("at") || "", focus: asked.get("focus") || "", depth: asked.get("depth") || "" };
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z$/.test(view.at)) view.at = "";
    // a moment still to come is the project as it is now, as when one is typed into As of
    if (Date.parse(view.at) > Date.now()) view.at = "";
    if (!/^(service|messaging|category|owner|flow)--[a-z0-9][a-z0-9_-]*$/.test(view.focus)) view.focus = "";
    if (!/^[0-5]$/.test(view.depth)) view.depth = "";
    return view;
  }
  // what the address asks for, read before anything is shown (showing rewrites it)
  var asked = new URLSearchParams(window.location.search);
  var view = viewOf(window.location.search);
  if (asked.get("at") && Date.parse(asked.get("at")) > Date.now()) {
    // the address says what is shown: now (a link or bookmark to a moment to come, which
    // the server shows as now too)
    asked.delete("at");
    viewHistory.write(asked.toString() ? "?" + asked : "", false);
  }
  // Back and Forward: the graph shows the view of the entry the browser went to (Find keeps
  // what it holds: it narrows the tables, it is not a place to go back to). Asked even when
  // it is the view shown: another may be on its way (Back, then Forward at once)
  window.addEventListener("popstate", function () {
    var wanted = viewOf(window.location.search);
    rememberFind();
    viewHistory.went();
    wanted.whole = true;
    document.dispatchEvent(new CustomEvent("archsvc:view", { detail: wanted }));
  });

  viewerRoot.addEventListener("archsvc:shown", function (event) {
    follow(event.detail || {});
    settling = false;
  });
  // the page opens on the whole project as it is now, or at the moment its tables were
  // served with: a form the browser restores says so too
  follow({ focus: "", at: servedAt });
  // unless its address asked for a view (the history page's "the project after this change",
  // a reload, a link): one redraw for all it asks
  // and Find what it holds there: over the moment asked for, whose rows are read whole anyway
  if (asked.get("find")) {
    findInput.value = asked.get("find").slice(0, findInput.maxLength);
    if (view.at && !servedAt) listTables(); else findInput.dispatchEvent(new Event("input"));
  }
  if (view.at || view.focus) {
    document.dispatchEvent(new CustomEvent("archsvc:view", { detail: view }));
  } else if (viewerRoot.hasAttribute("data-asked") && !viewerRoot.querySelector("[data-stage] svg")) {
    // the server left the graph to this script for a view it read in the address that this
    // script does not take: draw the project as it is now
    document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { clear: true } }));
  } else {
    settling = false;  // the page shows what its address asks for
  }
})();
