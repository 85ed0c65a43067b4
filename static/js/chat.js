/* The assistant's chat panel: posts the question with the conversation so far (the last 20
   turns), shows the reply and the entities it cites; a cited service or topic focuses the
   graph. Cookie-authenticated, so it sends Django's CSRF token. */
(function () {
  "use strict";
  var panel = document.querySelector("[data-chat]");
  if (!panel) return;
  var log = panel.querySelector("[data-chat-log]");
  var form = panel.querySelector("[data-chat-form]");
  var input = form.querySelector("textarea");
  var credits = panel.querySelector("[data-chat-credits]");
  var history = [];

  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function labelOf(id) {
    // the graph's own label for an entity (its tooltip's first line), else the id
    var node = document.querySelector('g.node[data-entity-id="' + CSS.escape(id) + '"] title');
    return node ? node.textContent.split("\n")[0] : id.replace(/^[a-z]+--/, "");
  }

  function add(role, text, references) {
    var item = document.createElement("li");
    item.className = "chat-" + role;
    var body = document.createElement("div");
    body.className = "chat-text";
    body.textContent = text;  // text only: a reply never becomes markup
    item.appendChild(body);
    var shown = 6;
    (references || []).forEach(function (id, index) {
      var chip = document.createElement("button");
      chip.type = "button";
      chip.className = "chip";
      chip.textContent = labelOf(id);
      chip.title = id;
      chip.hidden = index >= shown;
      chip.addEventListener("click", function () {
        document.dispatchEvent(new CustomEvent("archsvc:focus", { detail: { id: id } }));
      });
      item.appendChild(chip);
    });
    if ((references || []).length > shown) {
      var more = document.createElement("button");
      more.type = "button";
      more.className = "chip more";
      more.textContent = "+" + (references.length - shown) + " more";
      more.addEventListener("click", function () {
        item.querySelectorAll(".chip[hidden]").forEach(function (chip) { chip.hidden = false; });
        more.remove();
      });
      item.appendChild(more);
    }
    log.appendChild(item);
    log.scrollTop = log.scrollHeight;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var message = input.value.trim();
    if (!message) return;
    add("user", message);
    input.value = "";
    form.querySelector("button").disabled = true;
    fetch(panel.getAttribute("data-url"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify({ message: message, history: history.slice(-20) })
    }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (result) {
      if (!result.ok) {
        var text = result.body.message || "The assistant could not answer.";
        if (result.body.code === "insufficient_ai_credits") {
          credits.textContent = "0 credits left";
          text += " They refill on " + panel.getAttribute("data-credits-reset") +
            "; a bigger plan has more (Settings, Billing).";
        }
        add("error", text);
        return;
      }
      add("assistant", result.body.reply, result.body.references);
      history.push({ role: "user", content: message });
      history.push({ role: "assistant", content: result.body.reply.slice(0, 4000) });
      var left = result.body.creditsRemaining;
      credits.textContent = left + (left === 1 ? " credit left" : " credits left");
    }).catch(function () {
      add("error", "The assistant could not be reached.");
    }).then(function () {
      form.querySelector("button").disabled = false;
      input.focus();
    });
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
})();
