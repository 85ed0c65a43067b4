/* The Show menu (a select of things to focus the graph on), shared by the project page and
   a shared page: choosing an option focuses the graph on it, and the menu says what the
   graph is focused on however it was chosen (a click in the graph, the chat, a table),
   naming a focus it does not list in an option of its own. */
window.ArchsvcFocusMenu = function (select) {
  "use strict";
  var KINDS = { service: "service", messaging: "topic" };
  select.addEventListener("change", function () {
    // the option says its kind too, "payments (flow)": a category and a flow may share a name
    var id = select.value;
    var name = id ? select.selectedOptions[0].getAttribute("data-name") : "";
    document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { id: id, name: name, clear: !id } }));
  });
  return {
    // `state`: what the graph shows (archsvc:shown's detail: focus, name)
    show: function (state) {
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
