/* The assistant's chat panel: posts the question with the conversation so far (the last 20
   turns), shows the reply and the entities it cites; a cited service or topic focuses the
   graph. Cookie-authenticated, so it sends Django's CSRF token. One question at a time:
   while a reply is pending nothing else is sent (each question costs a credit, and the next
   one needs this one's turn in its history). */
(function () {
  "use strict";
  var panel = document.querySelector("[data-chat]");
  if (!panel) return;
  var log = panel.querySelector("[data-chat-log]");
  var form = panel.querySelector("[data-chat-form]");
  var input = form.querySelector("textarea");
  var ask = form.querySelector("button[type=submit]");
  var credits = panel.querySelector("[data-chat-credits]");
  var said = panel.querySelector("[data-chat-said]");
  var out = panel.querySelector("[data-chat-out]");
  var length = panel.querySelector("[data-chat-length]");
  var viewerRoot = document.querySelector("[data-graph-viewer]");
  var namesData = document.getElementById("entity-names");
  var names = namesData ? JSON.parse(namesData.textContent) : {};  // every current entity
  var limit = Number(input.getAttribute("maxlength")) || 4000;
  var history = [];
  var pending = false;
  // The conversation outlives a reload in this tab (sessionStorage: gone with the tab, and
  // at log-out, forms.js): the address keeps the graph's view, the panel keeps its talk.
  // Kept under who asked: whoever logs in next in this tab (a session that ended without
  // the Log out button) neither sees it nor sends it as their history; theirs goes too.
  var OWNER = panel.getAttribute("data-owner") || "";
  var KEPT = "archsvc:chat:" + OWNER + ":" + panel.getAttribute("data-url");
  try {
    Object.keys(window.sessionStorage).forEach(function (key) {
      if (key.indexOf("archsvc:chat:") === 0 && key.indexOf("archsvc:chat:" + OWNER + ":") !== 0) {
        window.sessionStorage.removeItem(key);
      }
    });
  } catch (unavailable) { /* nothing kept */ }
  var kept = [];
  function keep(turn) {
    kept.push(turn);
    kept = kept.slice(-40);
    try { window.sessionStorage.setItem(KEPT, JSON.stringify(kept)); } catch (full) { /* private mode, full */ }
  }

  function csrf() {
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function labelOf(id) {
    // the page's name for an entity (whatever the graph draws now), else the graph's own
    // label (its tooltip's first line), else the id
    if (Object.prototype.hasOwnProperty.call(names, id)) return names[id];
    var node = document.querySelector('g.node[data-entity-id="' + CSS.escape(id) + '"] title');
    return node ? node.textContent.split("\n")[0] : id.replace(/^[a-z]+--/, "");
  }

  // the log scrolls inside the panel: a reply shows from its start, the rest at the bottom
  function reveal(item) {
    var top = item.getBoundingClientRect().top - log.getBoundingClientRect().top;
    if (item.offsetHeight > log.clientHeight) log.scrollTop += top - 4;
    else log.scrollTop = log.scrollHeight;
  }

  // while the graph shows a past moment, the panel says that its answers are about now
  var past = panel.querySelector("[data-chat-past]");
  if (past) {
    document.addEventListener("archsvc:shown", function (event) {
      var at = (event.detail && event.detail.at) || "";
      past.hidden = !at;
      if (at) {
        past.textContent = "The graph shows " + at.slice(0, 16).replace("T", " ") +
          " UTC; answers are about the project now, and a name in one shows it now.";
      }
    });
  }

  function graphOutOfView() {
    var stage = viewerRoot && viewerRoot.querySelector("[data-stage]");
    if (!stage) return false;
    var box = stage.getBoundingClientRect();
    var shown = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
    return shown < Math.min(box.height, window.innerHeight) / 2;
  }

  function chipFor(id) {
    var chip = document.createElement("button");
    chip.type = "button";
    chip.className = "chip";
    chip.textContent = labelOf(id);
    chip.title = id;
    chip.addEventListener("click", function () {
      document.dispatchEvent(new CustomEvent("archsvc:focus", {
        detail: { id: id, name: chip.textContent, now: true } }));
      // on a phone the graph is above the chat, often off-screen: bring it into view
      if (graphOutOfView()) {
        var smooth = !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
        // the keyboard's place goes where the eye is taken, not left on a chip off-screen
        var stage = viewerRoot.querySelector("[data-stage]");
        if (stage) stage.focus({ preventScroll: true });
        viewerRoot.scrollIntoView({ behavior: smooth ? "smooth" : "auto", block: "start" });
      }
    });
    return chip;
  }

  // A reply's lines; those that begin "- " (the built-in analyst lists what a question
  // reaches so) are a list, each item wrapping under itself, not under its dash. Text only:
  // a reply never becomes markup.
  function replyLines(text) {
    var lines = document.createDocumentFragment();
    var list = null;
    text.split("\n").forEach(function (line) {
      var item = /^\s*[-•] (.*)$/.exec(line);
      if (item) {
        if (!list) {
          list = document.createElement("ul");
          list.className = "chat-list";
          lines.appendChild(list);
        }
        var entry = document.createElement("li");
        entry.textContent = item[1];
        list.appendChild(entry);
        return;
      }
      list = null;
      var para = document.createElement("p");
      para.textContent = line;
      lines.appendChild(para);
    });
    return lines;
  }

  function add(role, content, references) {
    var item = document.createElement("li");
    item.className = "chat-" + role;
    var body = document.createElement("div");
    body.className = "chat-text";
    // who said it, for a screen reader (the eye has the side and the colour)
    var speaker = { user: "You: ", assistant: "Assistant: " }[role];
    if (speaker) {
      var who = document.createElement("span");
      who.className = "visually-hidden";
      who.textContent = speaker;
      item.appendChild(who);
    }
    if (typeof content !== "string") body.appendChild(content);
    else if (role === "assistant") body.appendChild(replyLines(content));
    else body.textContent = content;  // a reply never becomes markup
    item.appendChild(body);
    var shown = 6;
    (references || []).forEach(function (id, index) {
      var chip = chipFor(id);
      chip.hidden = index >= shown;
      item.appendChild(chip);
    });
    if ((references || []).length > shown) {
      var more = document.createElement("button");
      more.type = "button";
      more.className = "chip more";
      more.textContent = "+" + (references.length - shown) + " more";
      more.addEventListener("click", function () {
        var revealed = item.querySelectorAll(".chip[hidden]");
        revealed.forEach(function (chip) { chip.hidden = false; });
        // the button goes: focus goes on to the first chip it showed (it fell to the page's
        // body, and the next Tab started again at the top of the page)
        if (revealed.length) revealed[0].focus();
        more.remove();
      });
      item.appendChild(more);
    }
    if (role === "error") item.setAttribute("role", "alert");  // said at once, assertively
    log.appendChild(item);
    reveal(item);
    return item;
  }

  function announce(text, then) {
    // the log is not a live region (the question and the chips are not read back): the
    // reply is said through this one, emptied first so the same reply twice is said twice;
    // `then` runs once it is said (the credits left: said before the reply, they were)
    said.textContent = "";
    clearTimeout(announce.timer);
    setTimeout(function () {
      said.textContent = text;
      if (then) then();
      // once said, emptied: read line by line, the panel held the reply twice
      announce.timer = setTimeout(function () { said.textContent = ""; }, 8000);
    }, 50);
  }

  function showCredits(left) {
    credits.textContent = left + (left === 1 ? " credit left" : " credits left");
    if (out) out.hidden = left > 0;
  }

  // "ask again in 12 seconds" / "in 2 minutes", from a 429's retryAfter
  function waitText(seconds) {
    if (!(seconds > 0)) return "in a moment";
    if (seconds < 90) return "in " + seconds + (seconds === 1 ? " second" : " seconds");
    var minutes = Math.ceil(seconds / 60);
    return "in " + minutes + " minutes";
  }

  function setPending(on) {
    pending = on;
    // not `disabled`: a pressed Ask that is disabled drops the keyboard's place to the page's
    // top until the reply comes (the submit handler refuses a second question meanwhile)
    if (on) ask.setAttribute("aria-disabled", "true"); else ask.removeAttribute("aria-disabled");
    if (on) log.setAttribute("aria-busy", "true"); else log.removeAttribute("aria-busy");
    form.classList.toggle("is-pending", on);
  }

  function showLength() {
    length.classList.remove("is-empty");
    var count = input.value.length;
    if (count >= limit) {
      length.textContent = limit + " characters at most: the rest is cut off.";
    } else if (count >= limit * 0.9) {
      length.textContent = count + " of " + limit + " characters at most.";
    } else {
      length.textContent = "";
    }
    length.classList.toggle("at-limit", count >= limit);
  }
  input.addEventListener("input", showLength);

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (pending) return;  // however it was sent: Enter, the button, requestSubmit()
    var message = input.value.trim();
    if (!message) {
      // said beside the box (the form is novalidate: an empty box got the browser's own
      // bubble, which stayed over the next answer, and spaces alone got nothing at all)
      length.textContent = "Type a question first.";
      length.classList.add("is-empty");
      input.focus();
      return;
    }
    add("user", message);
    input.value = "";
    showLength();
    setPending(true);
    var waiting = add("pending", "Thinking…");
    var restore = function () {
      // the question comes back to be sent again, unless a new one is being typed
      if (input.value.trim()) return "";
      input.value = message;
      showLength();
      return " Your question is back in the box to send again.";
    };
    fetch(panel.getAttribute("data-url"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf() },
      body: JSON.stringify({ message: message, history: history.slice(-20) })
    }).then(function (response) {
      return response.json().then(function (body) { return { ok: response.ok, body: body }; });
    }).then(function (result) {
      waiting.remove();
      if (!result.ok) {
        var text = result.body.message || "The assistant could not answer.";
        var back = restore();
        if (result.body.code === "insufficient_ai_credits") {
          // the note below the conversation says until when, and where more credits are
          showCredits(0);
          add("error", text + " Nothing was spent." + back);
        } else if (result.body.code === "rate_limited") {
          add("error", "Too many questions in a short time: ask again " +
            waitText(result.body.retryAfter) + "." + back);
        } else {
          add("error", text + back);
        }
        return;
      }
      add("assistant", result.body.reply, result.body.references);
      var left = result.body.creditsRemaining;
      announce(result.body.reply, function () { showCredits(left); });
      history.push({ role: "user", content: message });
      history.push({ role: "assistant", content: result.body.reply.slice(0, 4000) });
      keep({ role: "user", content: message });
      keep({ role: "assistant", content: result.body.reply, references: result.body.references });
    }).catch(function () {
      waiting.remove();
      add("error", "The assistant could not be reached." + restore());
    }).then(function () {
      setPending(false);
      input.focus();
    });
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      if (!pending) form.requestSubmit();
    }
  });

  // what this tab said before a reload, shown again and sent as the history again
  try { kept = JSON.parse(window.sessionStorage.getItem(KEPT) || "[]"); } catch (bad) { kept = []; }
  if (!Array.isArray(kept)) kept = [];
  kept.forEach(function (turn) {
    if (!turn || (turn.role !== "user" && turn.role !== "assistant")) return;
    if (typeof turn.content !== "string") return;
    var refs = Array.isArray(turn.references) ? turn.references.filter(function (id) { return typeof id === "string"; }) : [];
    add(turn.role, turn.content, refs);
    history.push({ role: turn.role, content: turn.content.slice(0, 4000) });
  });

  // beside the graph, the panel ends at the window's bottom so the question box stays in
  // view however long the conversation; the log scrolls inside it
  var wide = window.matchMedia("(min-width: 901px)");
  function fit() {
    if (!wide.matches) { panel.style.removeProperty("--chat-room"); return; }
    var top = panel.getBoundingClientRect().top + window.scrollY;
    panel.style.setProperty("--chat-room", Math.max(320, window.innerHeight - top - 16) + "px");
  }
  fit();
  window.addEventListener("resize", fit);
})();
