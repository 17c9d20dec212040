// The session page: chat, actions, upload, and live updates over the websocket.
// The API is the only way to change the session; the websocket only says that something changed.
(function () {
  "use strict";
  const root = document.getElementById("session");
  const sessionId = root.dataset.sessionId;
  const api = `/api/sessions/${sessionId}`;
  const chat = document.getElementById("chat");
  const errorBox = document.getElementById("error");
  let lastMessageId = 0;
  let socket = null;
  let retryDelay = 1000;

  const SOURCE_WORDS = { user: "you", file: "from file", lab_default: "lab default", llm: "LLM", auto_fix: "auto-fix" };

  const OPTION_WORDS = {
    approve: "Approve",
    preview: "Preview",
    accept_as_is: "Accept as is",
    retry: "Retry",
    cancel: "Cancel",
    request_help: "Ask an expert",
  };

  // What the files say is stored in plain units; shown the way a scientist reads them.
  const FIELD_LABELS = {
    channel_count: "channels",
    sampling_rate_hz: "sampling rate",
    duration_s: "duration",
    size_bytes: "size",
  };

  function showValue(name, value) {
    if (Array.isArray(value)) return value.join("; ");
    if (name === "size_bytes") return formatBytes(value);
    if (name === "sampling_rate_hz") return `${value} Hz`;
    if (name === "duration_s") return `${Math.round(value * 1000) / 1000} s`;
    return String(value);
  }

  function formatBytes(bytes) {
    const units = [["GB", 1073741824], ["MB", 1048576], ["kB", 1024]];
    for (const [unit, size] of units) {
      if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
    }
    return `${bytes} bytes`;
  }

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function showError(text) {
    errorBox.textContent = text || "";
    errorBox.hidden = !text;
  }

  async function call(path, options = {}) {
    const response = await fetch(api + path, {
      credentials: "same-origin",
      ...options,
      headers: { "X-CSRFToken": csrfToken(), ...(options.headers || {}) },
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      throw new Error(body.detail || `The server answered ${response.status}. Please try again.`);
    }
    return body;
  }

  function addMessage(message) {
    if (message.id <= lastMessageId) return;
    lastMessageId = message.id;
    const item = document.createElement("li");
    item.className = `message ${message.role}` + (message.card ? ` card-${message.card}` : "");
    item.textContent = message.text;
    if (message.card === "formats") {
      // One button per candidate format; the choice goes through the same action as the API's.
      const choices = document.createElement("div");
      choices.className = "actions";
      message.data.options.forEach((option) => {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = option.label;
        button.addEventListener("click", () => act("select_format", option.key));
        choices.appendChild(button);
      });
      item.appendChild(choices);
    }
    if (message.card === "options" && (message.data.options || []).length) {
      // The ways forward the reply names, as buttons doing the same actions as the words.
      const choices = document.createElement("div");
      choices.className = "actions";
      message.data.options.forEach((option) => {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = OPTION_WORDS[option] || option.replaceAll("_", " ");
        if (option === "cancel") button.className = "danger";
        button.addEventListener("click", () => act(option));
        choices.appendChild(button);
      });
      item.appendChild(choices);
    }
    if (message.card === "plan" && (message.data.all_streams || []).length > 1) {
      item.appendChild(streamChooser(message.data.all_streams));
    }
    if (message.card === "preview") {
      const link = document.createElement("a");
      link.href = `${api}/previews/${message.data.number}/file`;
      link.textContent = `Download preview ${message.data.number} (${formatBytes(message.data.size_bytes)})`;
      const line = document.createElement("div");
      line.className = "actions";
      line.appendChild(link);
      item.appendChild(line);
    }
    chat.appendChild(item);
    item.scrollIntoView({ block: "end" });
  }

  // A checkbox per stream of the recording; the choice goes through the same action as the API's.
  function streamChooser(streams) {
    const box = document.createElement("fieldset");
    box.className = "streams";
    const legend = document.createElement("legend");
    legend.textContent = "Streams to convert";
    box.appendChild(legend);
    streams.forEach((stream) => {
      const label = document.createElement("label");
      const check = document.createElement("input");
      check.type = "checkbox";
      check.value = stream.id;
      check.checked = stream.selected;
      label.append(check, ` ${stream.label}`);
      box.appendChild(label);
    });
    const apply = document.createElement("button");
    apply.type = "button";
    apply.textContent = "Use these streams";
    apply.addEventListener("click", () => {
      const chosen = [...box.querySelectorAll("input:checked")].map((input) => input.value);
      act("select_streams", chosen);
    });
    box.appendChild(apply);
    return box;
  }

  function setStatus(status) {
    document.getElementById("status").textContent = status.replaceAll("_", " ");
    if (status !== "converting" && status !== "validating") {
      document.getElementById("progress").hidden = true;
    }
  }

  function setProgress(phase, percent) {
    const box = document.getElementById("progress");
    box.hidden = false;
    document.getElementById("progress-label").textContent = phase === "validating" ? "Validating" : "Converting";
    const bar = document.getElementById("progress-bar");
    if (percent === null || percent === undefined) {
      bar.removeAttribute("value");
      document.getElementById("progress-percent").textContent = "";
    } else {
      bar.value = percent;
      document.getElementById("progress-percent").textContent = `${Math.round(percent)} %`;
    }
  }

  // Which buttons make sense now; the server refuses the others anyway, with a reason.
  function showActions(status, awaiting) {
    const deciding = awaiting === "correction" || awaiting === "no_progress_decision";
    const visible = {
      approve: awaiting === "approval",
      reject: awaiting === "approval",
      preview: awaiting === "approval",
      request_help: deciding || status === "failed",
      accept_as_is: deciding,
      retry: deciding || ["failed", "cancelled", "completed_with_issues", "completed"].includes(status),
      cancel: !["idle", "completed", "completed_with_issues", "cancelled"].includes(status),
    };
    document.querySelectorAll("#actions button").forEach((button) => {
      button.hidden = !visible[button.dataset.action];
    });
  }

  function render(session) {
    setStatus(session.status);
    showActions(session.status, session.awaiting);
    document.getElementById("format").textContent = session.format ? `· ${session.format}` : "";
    session.messages.forEach(addMessage);
    if (session.progress && session.progress.phase) setProgress(session.progress.phase, session.progress.percent);
    else document.getElementById("progress").hidden = true;

    const files = document.getElementById("files-list");
    const busy = ["converting", "validating"].includes(session.status);
    files.replaceChildren(...session.files.map((f) => {
      const li = document.createElement("li");
      li.textContent = `${f.path} (${formatBytes(f.size_bytes)}) `;
      if (!busy) {
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "link";
        remove.textContent = "remove";
        remove.setAttribute("aria-label", `Remove ${f.path}`);
        remove.addEventListener("click", () => removeFile(f.path));
        li.appendChild(remove);
      }
      return li;
    }));

    const metadata = document.getElementById("metadata");
    metadata.replaceChildren();
    Object.entries(session.metadata).forEach(([name, field]) => {
      const dt = document.createElement("dt");
      dt.textContent = FIELD_LABELS[name] || name.replaceAll("_", " ");
      const dd = document.createElement("dd");
      dd.textContent = showValue(name, field.value);
      const badge = document.createElement("span");
      badge.className = `badge source-${field.source}`;
      badge.textContent = SOURCE_WORDS[field.source] || field.source;
      dd.append(" ", badge);
      metadata.append(dt, dd);
    });

    const output = document.getElementById("output");
    if (session.output) {
      const link = document.createElement("a");
      link.href = session.output.url;
      link.textContent = `Download NWB file (attempt ${session.output.attempt}, ${formatBytes(session.output.size_bytes)})`;
      output.replaceChildren(link);
    } else {
      output.textContent = "No NWB file yet.";
    }
    const previews = document.getElementById("previews");
    previews.replaceChildren(...(session.previews || []).filter((p) => p.url).map((p) => {
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = p.url;
      link.textContent = `Preview ${p.number} (first seconds only, ${formatBytes(p.size_bytes || 0)})`;
      li.appendChild(link);
      return li;
    }));
  }

  async function removeFile(path) {
    showError("");
    try {
      const encoded = path.split("/").map(encodeURIComponent).join("/");
      render(await call(`/files/${encoded}`, { method: "DELETE" }));
    } catch (err) {
      showError(err.message);
    }
  }

  async function refresh() {
    try {
      render(await call(""));
    } catch (err) {
      showError(err.message);
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/sessions/${sessionId}/?after=${lastMessageId}`);
    socket.onopen = () => { retryDelay = 1000; };
    socket.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (data.type === "message") addMessage(data.message);
      else if (data.type === "progress") setProgress(data.phase, data.percent);
      else if (data.type === "status") {
        setStatus(data.status);
        showActions(data.status, data.awaiting);
        refresh();
      }
    };
    socket.onclose = (event) => {
      if (event.code === 4404 || event.code === 4401) {
        showError("This session is not available to you any more. Reload the page to log in again.");
        return;
      }
      // Reconnect; the server sends what was missed since the last message we have.
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 30000);
    };
  }

  document.getElementById("message-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const box = document.getElementById("message");
    const text = box.value.trim();
    if (!text) { showError("Type a message first."); return; }
    showError("");
    try {
      const turn = await call("/messages", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text }),
      });
      box.value = "";
      render(turn.session);
    } catch (err) {
      showError(err.message);
    }
  });

  document.getElementById("message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      document.getElementById("message-form").requestSubmit();
    }
  });

  async function act(action, value) {
    showError("");
    try {
      const turn = await call("/actions", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ action, value }),
      });
      render(turn.session);
    } catch (err) {
      showError(err.message);
    }
  }

  document.getElementById("actions").addEventListener("click", (event) => {
    const action = event.target.dataset && event.target.dataset.action;
    if (action) act(action);
  });

  document.getElementById("upload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = [...document.getElementById("files").files, ...document.getElementById("folder").files];
    if (!chosen.length) { showError("Choose the recording's files or its folder first."); return; }
    showError("");
    const form = new FormData();
    chosen.forEach((file) => {
      form.append("files", file);
      form.append("relative_paths", file.webkitRelativePath || file.name);
    });
    const bar = document.getElementById("upload-progress");
    bar.hidden = false;
    const request = new XMLHttpRequest();
    request.open("POST", `${api}/files`);
    request.setRequestHeader("X-CSRFToken", csrfToken());
    request.upload.onprogress = (e) => { if (e.lengthComputable) bar.value = (100 * e.loaded) / e.total; };
    request.onload = () => {
      bar.hidden = true;
      let body = {};
      try { body = JSON.parse(request.responseText); } catch (_) { /* not JSON */ }
      if (request.status >= 400) showError(body.detail || `Upload failed (${request.status}). Try again.`);
      else render(body);
    };
    request.onerror = () => {
      bar.hidden = true;
      showError("The upload was interrupted (connection lost). Nothing was converted; send the files again.");
    };
    request.send(form);
  });

  render(JSON.parse(document.getElementById("initial-session").textContent));
  connect();
})();
