/* Service editor: rows of consumed/produced topics and extras can be added and removed.
   Without this script the page still works: it renders a few empty rows to fill in.
   A Remove button is named after its row ("Remove consumed topic orders.placed"), and a
   group with data-max-rows stops offering rows at its limit. */
(function () {
  var form = document.querySelector("[data-service-editor]");
  if (!form) { return; }

  function nameRemove(row) {
    var button = row.querySelector("[data-remove-row]");
    var input = row.querySelector("input");
    if (!button) { return; }
    var value = input ? input.value.trim() : "";
    button.setAttribute("aria-label", button.getAttribute("data-label") + (value ? " " + value : ""));
  }

  function wireRemove(row, changed) {
    var button = row.querySelector("[data-remove-row]");
    if (!button) { return; }
    button.hidden = false;
    nameRemove(row);
    var input = row.querySelector("input");
    if (input) { input.addEventListener("input", function () { nameRemove(row); }); }
    button.addEventListener("click", function () {
      var list = row.parentNode;
      var next = row.nextElementSibling || row.previousElementSibling;
      row.parentNode.removeChild(row);
      changed();
      var focus = next && next.querySelector("input");
      if (focus) { focus.focus(); } else if (list) {
        var add = list.parentNode.querySelector("[data-add-row]");
        if (add) { add.focus(); }
      }
    });
  }

  // A topic's category and owner are the project's, merged from every service that names
  // it (the latest write wins; an empty field erases nothing): a row of a known topic shows
  // them as its fields' placeholders, and says so when what it holds would change them for
  // every service ("Warehouse UI" consuming stock.low made it "event" without a word).
  var known = {};
  document.querySelectorAll("#topic-names option").forEach(function (option) {
    known[option.value] = { category: option.getAttribute("data-category") || "",
                            owner: option.getAttribute("data-owner") || "" };
  });
  function topicNote(row) {
    var name = row.querySelector("input[name$='-name']");
    if (!name || !/-name$/.test(name.name) || !name.getAttribute("list")) { return; }
    var fields = { category: row.querySelector("input[name$='-category']"),
                   owner: row.querySelector("input[name$='-owner']") };
    var note = row.querySelector("[data-topic-note]");
    function update() {
      var topic = known[name.value.trim()];
      var changes = [];
      Object.keys(fields).forEach(function (field) {
        var input = fields[field];
        if (!input) { return; }
        var now = topic ? topic[field] : "";
        input.placeholder = now ? now + ", kept if empty" : field;
        var typed = input.value.trim();
        if (topic && now && typed && typed !== now) {
          changes.push(field + " \u201c" + typed + "\u201d (it is \u201c" + now + "\u201d)");
        }
      });
      if (!changes.length) { if (note) { note.remove(); note = null; } return; }
      if (!note) {
        note = document.createElement("p");
        note.className = "hint topic-note";
        note.setAttribute("data-topic-note", "");
        row.appendChild(note);
      }
      note.textContent = "Saving gives " + name.value.trim() + " the " + changes.join(" and the ") +
        " for the whole project.";
    }
    [name, fields.category, fields.owner].forEach(function (input) {
      if (input) { input.addEventListener("input", update); }
    });
    update();
  }
  form.querySelectorAll("[data-row]").forEach(topicNote);

  form.querySelectorAll("[data-rows]").forEach(function (group) {
    var list = group.querySelector("[data-row-list]");
    var template = group.querySelector("[data-row-template]");
    var add = group.querySelector("[data-add-row]");
    var note = group.querySelector("[data-max-note]");
    var max = Number(group.getAttribute("data-max-rows")) || Infinity;
    function changed() {
      if (!add) { return; }
      var full = list.querySelectorAll("[data-row]").length >= max;
      add.disabled = full;
      if (note) { note.hidden = !full; }
    }
    list.querySelectorAll("[data-row]").forEach(function (row) { wireRemove(row, changed); });
    if (!template || !add) { return; }
    add.hidden = false;
    changed();
    add.addEventListener("click", function () {
      if (list.querySelectorAll("[data-row]").length >= max) { return; }
      var fragment = template.content.cloneNode(true);
      var row = fragment.querySelector("[data-row]");
      list.appendChild(fragment);
      wireRemove(row, changed);
      topicNote(row);
      changed();
      var input = row.querySelector("input");
      if (input) { input.focus(); }
    });
  });
})();
