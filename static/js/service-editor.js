/* Service editor: rows of consumed/produced topics and extras can be added and removed.
   Without this script the page still works: it renders a few empty rows to fill in. */
(function () {
  var form = document.querySelector("[data-service-editor]");
  if (!form) { return; }

  function wireRemove(row) {
    var button = row.querySelector("[data-remove-row]");
    if (!button) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      var list = row.parentNode;
      var next = row.nextElementSibling || row.previousElementSibling;
      row.parentNode.removeChild(row);
      var focus = next && next.querySelector("input");
      if (focus) { focus.focus(); } else if (list) {
        var add = list.parentNode.querySelector("[data-add-row]");
        if (add) { add.focus(); }
      }
    });
  }

  form.querySelectorAll("[data-rows]").forEach(function (group) {
    var list = group.querySelector("[data-row-list]");
    var template = group.querySelector("[data-row-template]");
    var add = group.querySelector("[data-add-row]");
    list.querySelectorAll("[data-row]").forEach(wireRemove);
    if (!template || !add) { return; }
    add.hidden = false;
    add.addEventListener("click", function () {
      var fragment = template.content.cloneNode(true);
      var row = fragment.querySelector("[data-row]");
      list.appendChild(fragment);
      wireRemove(row);
      var input = row.querySelector("input");
      if (input) { input.focus(); }
    });
  });
})();
