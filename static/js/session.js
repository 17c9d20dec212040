// The session page: chat, status strip, actions, metadata panel, upload, and live updates.
// The API is the only way to change the session; the websocket only says that something changed,
// and a page that reconnects catches up from GET /api/sessions/{id}.
(function () {
  "use strict";
  const { formatBytes, callJson } = window.nwbportal;
  const root = document.getElementById("session");
  const sessionId = root.dataset.sessionId;
  const api = `/api/sessions/${sessionId}`;
  const chat = document.getElementById("chat");
  const errorBox = document.getElementById("error");
  const messageBox = document.getElementById("message");
  const catalogue = JSON.parse(document.getElementById("metadata-fields").textContent);
  const specs = new Map(catalogue.map((spec) => [spec.name, spec]));

  let current = null; // the session as last rendered
  let liveStatus = ""; // the newest status, from the session or a status event
  let lastMessageId = 0;
  let socket = null;
  let retryDelay = 1000;
  let disconnected = false;
  let editing = null; // the name of the field whose editor is open
  let refreshing = null;
  let refreshAgain = false;
  let samples = []; // [{attempt, time, percent}] seen by this page, for the time left
  let pinned = true; // the chat is scrolled to its newest message

  const RUNNING = ["detecting_format", "converting", "validating"];

  const SOURCE_WORDS = { user: "you", file: "from file", lab_default: "lab default", llm: "LLM", auto_fix: "auto-fix" };
  const SOURCE_HINTS = {
    user: "Given by you",
    file: "Read from the recording's files",
    lab_default: "Your lab's default",
    llm: "Read from your words by the language model: check it",
    auto_fix: "Put automatically in the form DANDI accepts",
  };
  const NEED_WORDS = { required: "required", dandi: "DANDI" };
  const NEED_HINTS = {
    required: "NWB and DANDI need it before converting",
    dandi: "DANDI requires a subject; giving it now avoids a second conversion",
  };
  const SPEAKERS = { user: "You", assistant: "Portal", reviewer: "Note from the portal's admins" };

  const OPTION_WORDS = {
    approve: "Approve",
    preview: "Preview",
    accept_as_is: "Accept as is",
    retry: "Retry",
    cancel: "Cancel",
    request_help: "Ask an expert",
  };

  const STATUS_WORDS = {
    idle: "Waiting for files",
    detecting_format: "Recognising the files",
    awaiting_user_input: "Waiting for your answer",
    awaiting_approval: "Plan ready for approval",
    converting: "Converting",
    validating: "Checking the file",
    completed: "Done",
    completed_with_issues: "Done, with issues",
    failed: "Failed",
    cancelled: "Cancelled",
  };

  const STEPS = ["detect", "metadata", "plan", "convert", "validate", "done"];

  // --- small helpers ---------------------------------------------------------------------------

  function formatSeconds(seconds) {
    if (seconds < 60) return "less than a minute";
    const minutes = Math.round(seconds / 60);
    if (minutes < 90) return `about ${minutes} min`;
    return `about ${(minutes / 60).toFixed(1)} h`;
  }

  // What the files say is stored in plain units; shown the way a scientist reads them, so their
  // labels lose the unit ("size (bytes)" shows "1.2 GB").
  const SHOWN_WITH_UNIT = { sampling_rate_hz: "sampling rate", duration_s: "duration", size_bytes: "size" };

  function showValue(name, value) {
    if (value === null || value === undefined || value === "") return "";
    if (Array.isArray(value)) return value.join("; ");
    if (name === "size_bytes") return formatBytes(value);
    if (name === "sampling_rate_hz") return `${value} Hz`;
    if (name === "duration_s") return `${Math.round(value * 1000) / 1000} s`;
    if (typeof value === "object") return JSON.stringify(value);
    return String(value);
  }

  function editableText(value) {
    if (value === null || value === undefined) return "";
    return Array.isArray(value) ? value.join("; ") : String(value);
  }

  function element(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "className") node.className = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    node.append(...children.filter((child) => child !== null && child !== undefined));
    return node;
  }

  function showError(text) {
    errorBox.textContent = text || "";
    errorBox.hidden = !text;
  }

  function call(path, options = {}) {
    return callJson(api + path, options);
  }


  function postJson(path, payload) {
    return call(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(payload),
    });
  }

  // --- chat ------------------------------------------------------------------------------------

  function addMessage(message) {
    if (document.getElementById(`message-${message.id}`)) return;
    lastMessageId = Math.max(lastMessageId, message.id);
    const data = message.data || {};
    const item = element("li", {
      id: `message-${message.id}`,
      className: `message ${message.role}` + (message.card ? ` card-${message.card}` : ""),
      "data-role": message.role,
      "data-message-id": message.id,
      "data-card": message.card,
      "data-plan": data.plan === "rejected" ? "rejected" : null,
    });
    const speaker = SPEAKERS[message.role] || message.role;
    item.appendChild(
      element("span", { className: message.role === "reviewer" ? "speaker" : "speaker visually-hidden", text: `${speaker}: ` })
    );
    if (message.card === "fixes") {
      // One line; every change (before, after, why) behind "details".
      item.appendChild(element("div", { className: "message-text", text: message.text.split("\n")[0] }));
      item.appendChild(fixDetails(data.fixes || []));
    } else if (message.card) {
      item.appendChild(element("div", { className: "message-text", text: message.text }));
    } else {
      item.append(...textWithLongLists(message.text));
    }
    if (message.card === "formats") item.appendChild(formatChoices(data.options || []));
    if (message.card === "options" && (data.options || []).length) item.appendChild(optionButtons(data.options));
    if (message.card === "plan") {
      if ((data.timeline || []).some((part) => PART_KINDS[part.kind])) item.appendChild(timeAxis(data.timeline));
      if ((data.all_streams || []).length > 1) item.appendChild(streamChooser(data.all_streams));
      item.appendChild(planButtons());
    }
    if (message.card === "issues") {
      const links = issueFieldLinks(data.issues || []);
      if (links) item.appendChild(links);
    }
    if (message.card === "preview") {
      const link = element("a", {
        href: `${api}/previews/${data.number}/file`,
        text: `Download preview ${data.number} (${formatBytes(data.size_bytes || 0)})`,
      });
      item.appendChild(element("div", { className: "actions" }, link));
    }
    // In id order, whichever way a message arrived (the turn's answer, the websocket, a catch-up).
    const later = [...chat.children].find((other) => Number(other.dataset.messageId) > message.id);
    chat.insertBefore(item, later || null);
    if (message.role === "user") pinned = true;
    pinChat();
  }

  function fixWords(fix) {
    const label = fix.label || fix.field;
    const before = showValue(fix.field, fix.before);
    const after = showValue(fix.field, fix.after);
    const change = before ? `“${before}” → “${after}”` : `“${after}”`;
    return `${label}: ${change}` + (fix.reason ? ` (${fix.reason})` : "");
  }

  function fixDetails(fixes) {
    const list = element("ul", { className: "fix-list" }, ...fixes.map((fix) => element("li", { text: fixWords(fix) })));
    return element("details", { className: "fix-details" }, element("summary", { text: "details" }), list);
  }

  // A message's long run of "• " lines (every format the portal converts, say) is shown behind a
  // toggle, so the lines around it stay in sight; a short one stays as it is.
  const LONG_LIST = 6;

  function textWithLongLists(text) {
    const lines = text.split("\n");
    const parts = [];
    let plain = [];
    let index = 0;
    const flush = () => {
      if (plain.length) parts.push(element("div", { className: "message-text", text: plain.join("\n") }));
      plain = [];
    };
    while (index < lines.length) {
      let end = index;
      while (end < lines.length && lines[end].startsWith("• ")) end += 1;
      if (end - index >= LONG_LIST) {
        flush();
        const items = lines.slice(index, end).map((line) => element("li", { text: line.slice(2) }));
        parts.push(
          element(
            "details",
            { className: "long-list" },
            element("summary", { text: `show all ${items.length}` }),
            element("ul", {}, ...items)
          )
        );
        index = end;
      } else {
        plain.push(...lines.slice(index, Math.max(end, index + 1)));
        index = Math.max(end, index + 1);
      }
    }
    flush();
    return parts;
  }

  // The chat follows new messages while it is scrolled to its end; not while one reads back.
  function pinChat() {
    if (pinned) chat.scrollTop = chat.scrollHeight;
  }
  chat.addEventListener("scroll", () => {
    pinned = chat.scrollHeight - chat.scrollTop - chat.clientHeight < 40;
  });
  if (window.ResizeObserver) new ResizeObserver(pinChat).observe(chat);

  function formatChoices(options) {
    // One button per candidate format; the choice goes through the same action as the API's.
    const choices = element("div", { className: "actions" });
    options.forEach((option) => {
      const button = element("button", { type: "button", text: option.label, "data-format": option.key });
      button.addEventListener("click", () => act("select_format", option.key));
      choices.appendChild(button);
    });
    return choices;
  }

  function optionButtons(options) {
    // The ways forward the reply names, as buttons doing the same actions as the words.
    const choices = element("div", { className: "actions" });
    options.forEach((option) => {
      const button = element("button", {
        type: "button",
        text: OPTION_WORDS[option] || option.replaceAll("_", " "),
        className: option === "cancel" ? "danger" : null,
        "data-option": option,
      });
      button.addEventListener("click", () => act(option));
      choices.appendChild(button);
    });
    return choices;
  }

  // A checkbox per stream of the recording; the choice goes through the same action as the API's.
  // What a session's parts are called on the plan's time axis, by kind of stream.
  const PART_KINDS = { spikes: "spike sorting", pose: "pose", video: "video" };
  const SVG = "http://www.w3.org/2000/svg";

  function svg(name, attributes, ...children) {
    const node = document.createElementNS(SVG, name);
    Object.entries(attributes).forEach(([key, value]) => node.setAttribute(key, String(value)));
    children.forEach((child) => node.appendChild(child));
    return node;
  }

  // Each chosen stream as a bar on the session's clock: where it starts and how long it lasts; a
  // part whose start is not known yet is drawn from 0, hatched, and says so.
  function timeAxis(timeline) {
    const ends = timeline.map((part) => (part.start_s || 0) + part.duration_s);
    const first = Math.min(0, ...timeline.map((part) => part.start_s || 0));
    const last = Math.max(...ends, first + 1);
    const width = 560, left = 120, row = 22, top = 6;
    const x = (seconds) => left + ((seconds - first) / (last - first)) * (width - left - 10);
    const height = top + timeline.length * row + 24;
    const plot = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "time-axis", role: "img" });
    plot.appendChild(svg("title", {})).textContent = "Where each part sits on the session's clock";
    timeline.forEach((part, index) => {
      const y = top + index * row;
      const known = part.start_s !== null && part.start_s !== undefined;
      const name = PART_KINDS[part.kind] || "recording";
      const label = svg("text", { x: 0, y: y + 14, class: "time-axis-label" });
      label.textContent = known ? name : `${name} (start?)`;
      const bar = svg("rect", {
        x: x(known ? part.start_s : 0),
        y: y + 3,
        width: Math.max(2, x((known ? part.start_s : 0) + part.duration_s) - x(known ? part.start_s : 0)),
        height: row - 8,
        class: `time-axis-bar ${part.kind}${known ? "" : " unknown"}`,
      });
      bar.appendChild(svg("title", {})).textContent = `${part.label}: ${
        known ? `from ${part.start_s} s` : "start not known yet"
      }, ${part.duration_s.toFixed(1)} s (${part.how})`;
      plot.append(label, bar);
    });
    const axisY = top + timeline.length * row + 4;
    plot.appendChild(svg("line", { x1: left, x2: width - 10, y1: axisY, y2: axisY, class: "time-axis-line" }));
    [first, last].forEach((seconds, index) => {
      const tick = svg("text", { x: index ? width - 10 : left, y: axisY + 16, class: `time-axis-tick${index ? " end" : ""}` });
      tick.textContent = `${Math.round(seconds * 10) / 10} s`;
      plot.appendChild(tick);
    });
    return element("figure", { className: "time-axis-figure" }, plot);
  }

  function streamChooser(streams) {
    const box = element("fieldset", { className: "streams" }, element("legend", { text: "Streams to convert" }));
    streams.forEach((stream) => {
      const check = element("input", { type: "checkbox", value: stream.id, checked: stream.selected });
      box.appendChild(element("label", { title: stream.label }, check, ` ${stream.label}`));
    });
    const apply = element("button", { type: "button", text: "Use these streams" });
    apply.addEventListener("click", () => {
      const chosen = [...box.querySelectorAll("input:checked")].map((input) => input.value);
      act("select_streams", chosen);
    });
    box.appendChild(apply);
    return box;
  }

  // Approve, Modify, Reject: live on the newest plan while it waits for approval (refreshCards).
  function planButtons() {
    const row = element("div", { className: "actions plan-actions", role: "group", "aria-label": "Decide on this plan" });
    const approve = element("button", { type: "button", text: "Approve", "data-action": "approve" });
    const modify = element("button", { type: "button", text: "Modify", className: "secondary", "data-action": "modify" });
    const reject = element("button", { type: "button", text: "Reject", className: "secondary", "data-action": "reject" });
    approve.addEventListener("click", () => act("approve"));
    reject.addEventListener("click", () => act("reject"));
    modify.addEventListener("click", startModifying);
    row.append(approve, modify, reject);
    return row;
  }

  // Whether the newest plan was rejected: a "not converting this plan" reply came after it.
  function planRejected() {
    const plans = chat.querySelectorAll('[data-card="plan"]');
    const plan = plans[plans.length - 1];
    if (!plan) return false;
    return [...chat.querySelectorAll('[data-plan="rejected"]')].some(
      (reply) => Number(reply.dataset.messageId) > Number(plan.dataset.messageId)
    );
  }

  function setLive(controls, live, why) {
    controls.forEach((control) => {
      control.disabled = !live;
      if (live) control.removeAttribute("title");
      else control.title = why;
    });
  }

  // The buttons of a card work only while they apply: the newest plan while it waits for approval
  // (not once rejected, but for Modify), the newest choice of formats while the format is asked,
  // the newest options card for what can be done now. Older cards keep their buttons, disabled.
  function refreshCards() {
    const status = current ? current.status : liveStatus;
    const awaiting = current ? current.awaiting : null;
    const waiting = awaiting === "approval";
    if (!waiting) stopModifying();
    const cards = [...chat.querySelectorAll('[data-card="plan"], [data-card="options"], [data-card="formats"]')];
    const newest = cards[cards.length - 1];
    const plans = cards.filter((card) => card.dataset.card === "plan");
    const rejected = planRejected();
    plans.forEach((plan, index) => {
      const latest = index === plans.length - 1;
      const why = !latest ? "A newer plan replaced this one" : !waiting ? "This plan is no longer waiting for approval" : "You rejected this plan: change something for a new one";
      const live = latest && waiting;
      setLive(plan.querySelectorAll('[data-action="approve"], [data-action="reject"], .streams input, .streams button'), live && !rejected, why);
      setLive(plan.querySelectorAll('[data-action="modify"]'), live, why);
      plan.dataset.state = live ? (rejected ? "rejected" : "live") : "stale";
    });
    const formats = cards.filter((card) => card.dataset.card === "formats");
    formats.forEach((card) => {
      const live = card === formats[formats.length - 1] && awaiting === "format_selection";
      setLive(card.querySelectorAll("button"), live, "The format has been chosen");
      card.dataset.state = live ? "live" : "stale";
    });
    const now = actionsNow(status, awaiting);
    cards.filter((card) => card.dataset.card === "options").forEach((card) => {
      const latest = card === newest;
      card.querySelectorAll("button").forEach((button) => {
        const option = button.dataset.option;
        setLive([button], latest && (!(option in now) || now[option]), "This no longer applies");
      });
      card.dataset.state = latest ? "live" : "stale";
    });
  }

  function startModifying() {
    document.getElementById("modify-hint").hidden = false;
    messageBox.placeholder = "Tell me what to change, e.g. “change the institution to Stanford”";
    messageBox.focus();
  }

  function stopModifying() {
    document.getElementById("modify-hint").hidden = true;
    messageBox.placeholder = messageBox.dataset.placeholder;
  }

  // The fields an issue names, as links to their rows in the metadata panel: those asked for and
  // those only suggested ("links").
  function issueFieldLinks(issues) {
    const names = [...new Set(issues.flatMap((issue) => [...(issue.fields || []), ...(issue.links || [])]))].filter((name) =>
      specs.has(name)
    );
    if (!names.length) return null;
    const line = element("p", { className: "field-links" }, "Set in the panel: ");
    names.forEach((name, index) => {
      if (index) line.append(", ");
      line.appendChild(element("a", { href: `#field-${name}`, text: specs.get(name).label }));
    });
    return line;
  }

  // --- status strip and progress -----------------------------------------------------------------

  // Which step the session is at, and in what state: running, needs-you, failed, cancelled...
  function stepOf(session) {
    const attempts = session.attempts || [];
    const latest = attempts[attempts.length - 1];
    const reached = latest ? (latest.state === "succeeded" ? "validate" : "convert") : session.format ? "metadata" : "detect";
    switch (session.status) {
      case "idle":
        return { step: "detect", state: "waiting", note: "Upload the recording to begin." };
      case "detecting_format":
        return { step: "detect", state: "running", note: "" };
      case "awaiting_user_input":
        if (session.awaiting === "format_selection") {
          return { step: "detect", state: "needs-you", note: "Which format are these files? Pick one in the chat." };
        }
        if (session.awaiting === "correction" || session.awaiting === "no_progress_decision") {
          return { step: "validate", state: "needs-you", note: "The check found issues: fix them, or accept the file as it is." };
        }
        return { step: "metadata", state: "needs-you", note: "Some details are missing: answer in the chat or fill them in the panel." };
      case "awaiting_approval":
        if (planRejected()) {
          return { step: "plan", state: "needs-you", note: "Plan rejected: tell me what to change, in the chat or the metadata panel, or cancel." };
        }
        return { step: "plan", state: "needs-you", note: "The plan is ready: approve it, or change something first." };
      case "converting":
        return { step: "convert", state: "running", note: "" };
      case "validating":
        return { step: "validate", state: "running", note: "" };
      case "completed":
        return { step: "done", state: "complete", note: "" };
      case "completed_with_issues":
        return { step: "done", state: "issues", note: "The file is ready, with issues listed in the report." };
      case "failed":
        return { step: latest ? reached : "detect", state: "failed", note: "This step failed: see the chat for why and what you can do." };
      case "cancelled":
        return { step: reached, state: "cancelled", note: "Cancelled. Say “retry” or use Retry to start again." };
      default:
        return { step: "detect", state: "waiting", note: "" };
    }
  }

  const STATE_WORDS = {
    waiting: "current",
    running: "in progress",
    "needs-you": "waiting for you",
    complete: "complete",
    issues: "complete, with issues",
    failed: "failed",
    cancelled: "cancelled",
  };

  function renderSteps(session) {
    const { step, state, note } = stepOf(session);
    const at = STEPS.indexOf(step);
    document.querySelectorAll("#steps [data-step]").forEach((item) => {
      const index = STEPS.indexOf(item.dataset.step);
      const done = index < at || (state === "complete" && index === at);
      item.className = done ? "done" : index === at ? `current state-${state}` : "todo";
      if (index === at) item.setAttribute("aria-current", "step");
      else item.removeAttribute("aria-current");
      item.dataset.state = done ? "done" : index === at ? state : "todo";
      item.querySelector(".step-state").textContent = done ? " (done)" : index === at ? ` (${STATE_WORDS[state]})` : "";
    });
    const box = document.getElementById("state-note");
    const notes = [note];
    if (session.needs_review) notes.push("The portal's admins have been asked to look at this session.");
    box.textContent = notes.filter(Boolean).join(" ");
    box.hidden = !box.textContent;
    box.className = `state-note state-${state}` + (session.needs_review ? " needs-review" : "");
    box.dataset.state = state;
  }

  function setStatus(status) {
    const label = document.getElementById("status");
    label.textContent = STATUS_WORDS[status] || status.replaceAll("_", " ");
    label.dataset.status = status;
    liveStatus = status;
  }

  function setProgress(phase, percent, attempt) {
    const box = document.getElementById("progress");
    const bar = document.getElementById("progress-bar");
    const fill = document.getElementById("progress-fill");
    const label = phase === "validating" ? "Checking the file against DANDI's rules" : "Converting";
    box.hidden = false;
    document.getElementById("progress-label").textContent = label;
    bar.dataset.phase = phase;
    const eta = document.getElementById("progress-eta");
    if (phase !== "converting" || percent === null || percent === undefined) {
      // Validation reports no steps in between: a bar that moves without a number.
      bar.removeAttribute("aria-valuenow");
      bar.setAttribute("aria-valuetext", `${label}…`);
      bar.classList.add("indeterminate");
      fill.style.width = "";
      document.getElementById("progress-percent").textContent = "";
      eta.textContent = "";
      return;
    }
    bar.classList.remove("indeterminate");
    const shown = Math.round(percent);
    bar.setAttribute("aria-valuenow", String(shown));
    fill.style.width = `${Math.max(0, Math.min(100, percent))}%`;
    document.getElementById("progress-percent").textContent = `${shown} %`;
    const left = timeLeft(attempt, percent);
    eta.textContent = left ? `${left} left` : "";
    bar.setAttribute("aria-valuetext", `${shown} %` + (left ? `, ${left} left` : ""));
  }

  // From the progress this page has seen for the attempt (its own clock, so the server's does
  // not matter); nothing until there is enough to go on.
  function timeLeft(attempt, percent) {
    const now = Date.now();
    samples = samples.filter((sample) => sample.attempt === attempt);
    samples.push({ attempt, time: now, percent });
    const first = samples[0];
    const gained = percent - first.percent;
    const seconds = (now - first.time) / 1000;
    if (gained < 1 || seconds < 5 || percent >= 100) return "";
    return formatSeconds(((100 - percent) * seconds) / gained);
  }

  function hideProgress() {
    document.getElementById("progress").hidden = true;
    samples = [];
  }

  // Which actions make sense now; the server refuses the others anyway, with a reason.
  function actionsNow(status, awaiting) {
    const deciding = awaiting === "correction" || awaiting === "no_progress_decision";
    return {
      approve: awaiting === "approval",
      preview: awaiting === "approval",
      request_help: deciding || status === "failed",
      accept_as_is: deciding,
      retry: deciding || ["failed", "cancelled", "completed_with_issues", "completed"].includes(status),
      cancel: !["idle", "completed", "completed_with_issues", "cancelled"].includes(status),
    };
  }

  function showActions(status, awaiting) {
    const visible = actionsNow(status, awaiting);
    document.querySelectorAll("#actions button").forEach((button) => {
      button.hidden = !visible[button.dataset.action];
    });
  }

  // --- metadata panel ----------------------------------------------------------------------------

  const GROUPS = [
    { title: "Needed", needs: ["required", "dandi"] },
    { title: "More details", needs: ["optional"] },
    { title: "From the recording", needs: ["file", "other"] },
  ];

  function renderMetadata(session) {
    const metadata = session.metadata || {};
    const locked = RUNNING.includes(session.status);
    const extra = Object.keys(metadata)
      .filter((name) => !specs.has(name))
      .map((name) => ({ name, label: name.replaceAll("_", " "), description: "", example: "", need: "other", editable: false }));
    const rows = [...catalogue, ...extra].filter((spec) => spec.editable || metadata[spec.name]);
    const keep = editing ? document.querySelector(`#metadata [data-field="${editing}"]`) : null;
    // Moving the open editor into the new list takes the focus away from it: give it back.
    const focused = keep && keep.contains(document.activeElement) ? document.activeElement : null;
    const selection = focused && "selectionStart" in focused ? [focused.selectionStart, focused.selectionEnd] : null;
    const panel = document.getElementById("metadata");
    const parts = [];
    GROUPS.forEach((group) => {
      const members = rows.filter((spec) => group.needs.includes(spec.need));
      if (!members.length) return;
      parts.push(element("h3", { className: "field-group", text: group.title }));
      const list = element("dl", { className: "metadata" });
      members.forEach((spec) => {
        list.appendChild(keep && spec.name === editing ? keep : fieldRow(spec, metadata[spec.name], locked, session.timezone));
      });
      parts.push(list);
    });
    panel.replaceChildren(...parts);
    if (focused) {
      focused.focus();
      if (selection) focused.setSelectionRange(...selection);
    }
    document.getElementById("metadata-note").textContent = locked
      ? "A job is running on these files: values can be changed once it has finished."
      : "Change a value here or in the chat: both tell the portal the same thing.";
  }

  // A start time written without an offset is read in the session's zone: say which.
  function shownWithZone(name, text, zone) {
    if (name !== "session_start_time" || !text || !zone || /(Z|[+-]\d\d:?\d\d)$/.test(text)) return text;
    return `${text} (${zone})`;
  }

  function fieldRow(spec, field, locked, zone) {
    const row = element("div", {
      className: "field" + (field ? "" : " missing"),
      id: `field-${spec.name}`,
      "data-field": spec.name,
      "data-need": spec.need,
      tabindex: "-1",
    });
    const label = SHOWN_WITH_UNIT[spec.name] || spec.label;
    const term = element("dt", {}, element("span", { className: "field-label", text: label }));
    if (NEED_WORDS[spec.need] && !field) {
      term.append(" ", element("span", { className: `need need-${spec.need}`, text: NEED_WORDS[spec.need], title: NEED_HINTS[spec.need] }));
    }
    const text = field ? shownWithZone(spec.name, showValue(spec.name, field.value), zone) : "";
    const detail = element("dd", {});
    detail.appendChild(
      element("span", { className: "field-value" + (text ? "" : " empty"), title: text || spec.description, text: text || "not given" })
    );
    if (field) {
      const words = SOURCE_WORDS[field.source] || field.source;
      detail.append(
        " ",
        element("span", {
          className: "badge",
          "data-source": field.source,
          title: SOURCE_HINTS[field.source] || "",
          "aria-label": `source: ${SOURCE_HINTS[field.source] || words}`,
          text: words,
        })
      );
    }
    if (spec.editable) {
      const edit = element("button", {
        type: "button",
        className: "link field-edit",
        "data-testid": "field-edit",
        "aria-label": `${field ? "Change" : "Set"} the ${spec.label}`,
        disabled: locked,
        title: locked ? "A job is running: change it once it has finished" : null,
        text: field ? "Edit" : "Set",
      });
      edit.addEventListener("click", () => openEditor(spec.name));
      detail.append(" ", edit);
    }
    row.append(term, detail);
    return row;
  }

  function openEditor(name) {
    const spec = specs.get(name);
    const row = document.querySelector(`#metadata [data-field="${name}"]`);
    if (!spec || !spec.editable || !row) return;
    if (editing && editing !== name) closeEditor();
    editing = name;
    const field = current && current.metadata[name];
    const multiline = name.endsWith("_description");
    const input = element(multiline ? "textarea" : "input", {
      id: `input-${name}`,
      className: "field-input",
      "data-testid": "field-input",
      "aria-describedby": `hint-${name}`,
      rows: multiline ? "3" : null,
      type: multiline ? null : "text",
    });
    input.value = editableText(field && field.value);
    input.placeholder = spec.example;
    const problem = element("p", { className: "error field-error", role: "alert", "data-testid": "field-error", hidden: true });
    const save = element("button", { type: "submit", "data-testid": "field-save", text: "Save" });
    const cancel = element("button", { type: "button", className: "link", "data-testid": "field-cancel", text: "Cancel" });
    const form = element(
      "form",
      { className: "field-editor" },
      element("label", { for: `input-${name}`, className: "visually-hidden", text: spec.label }),
      input,
      element("small", { id: `hint-${name}`, className: "hint", text: `${spec.description} e.g. ${spec.example}` }),
      element("div", { className: "actions" }, save, cancel),
      problem
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      saveField(name, input.value, form);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        closeEditor(true);
      } else if (multiline && event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    cancel.addEventListener("click", () => closeEditor(true));
    row.querySelector("dd").replaceChildren(form);
    row.classList.add("editing");
    input.focus();
  }

  function closeEditor(focusRow = false) {
    const name = editing;
    editing = null;
    if (current) renderMetadata(current);
    if (focusRow && name) {
      const button = document.querySelector(`#metadata [data-field="${name}"] .field-edit`);
      if (button) button.focus();
    }
  }

  async function saveField(name, value, form) {
    const problem = form.querySelector(".field-error");
    const buttons = form.querySelectorAll("button");
    problem.hidden = true;
    buttons.forEach((button) => { button.disabled = true; });
    try {
      const turn = await postJson(`/metadata/${encodeURIComponent(name)}`, { value });
      editing = null;
      render(turn.session);
      const button = document.querySelector(`#metadata [data-field="${name}"] .field-edit`);
      if (button) button.focus();
    } catch (err) {
      // What was typed stays in the box, with the reason beside it.
      problem.textContent = err.message;
      problem.hidden = false;
      buttons.forEach((button) => { button.disabled = false; });
      if (err.status === 409) scheduleRefresh();
    }
  }

  // A link to #field-<name> (from the validation report or an issue) opens that field.
  function followFieldLink() {
    const match = location.hash.match(/^#field-(\w+)$/);
    if (!match) return;
    const row = document.querySelector(`#metadata [data-field="${match[1]}"]`);
    if (!row) return;
    row.scrollIntoView({ block: "center" });
    const edit = row.querySelector(".field-edit");
    if (edit && !edit.disabled) openEditor(match[1]);
    else row.focus();
  }

  // --- the whole page ----------------------------------------------------------------------------

  function renderFiles(session) {
    const files = document.getElementById("files-list");
    if (!files) return;
    const busy = RUNNING.includes(session.status) && session.status !== "detecting_format";
    files.replaceChildren(
      ...session.files.map((f) => {
        const item = element(
          "li",
          {},
          element("span", { className: "file-name", title: f.path, text: f.path }),
          element("span", { className: "file-size", text: ` (${formatBytes(f.size_bytes)})` })
        );
        if (!busy) {
          const remove = element("button", { type: "button", className: "link", text: "remove", "aria-label": `Remove ${f.path}` });
          remove.addEventListener("click", () => removeFile(f.path));
          item.append(" ", remove);
        }
        return item;
      })
    );
  }

  function renderResult(session) {
    const output = document.getElementById("output");
    if (output) {
      if (session.output) {
        const link = element("a", {
          href: session.output.url,
          text: `Download NWB file (attempt ${session.output.attempt}, ${formatBytes(session.output.size_bytes)})`,
        });
        output.replaceChildren(link);
      } else {
        output.textContent = "No NWB file yet.";
      }
    }
    const previews = document.getElementById("previews");
    if (previews) {
      previews.replaceChildren(
        ...(session.previews || []).filter((p) => p.url).map((p) => {
          const link = element("a", { href: p.url, text: `Preview ${p.number} (first seconds only, ${formatBytes(p.size_bytes || 0)})` });
          return element("li", {}, link);
        })
      );
    }
    // The result part (plot, tree, report), when it is on the page.
    const part = window.nwbportalResult;
    if (part && typeof part.render === "function") {
      try {
        part.render(session);
      } catch (err) {
        console.error("the result part could not render", err);
      }
    }
  }

  function render(session) {
    current = session;
    setStatus(session.status);
    // The messages first: the steps' note and the cards' buttons depend on them.
    session.messages.forEach(addMessage);
    renderSteps(session);
    showActions(session.status, session.awaiting);
    document.getElementById("format").textContent = session.format ? `· ${session.format}` : "";
    const download = document.getElementById("download-link");
    download.hidden = !session.output;
    if (session.output) download.href = session.output.url;
    refreshCards();
    const attempts = session.attempts || [];
    const latest = attempts[attempts.length - 1];
    if (session.progress && session.progress.phase) {
      setProgress(session.progress.phase, session.progress.percent, latest ? latest.number : 0);
    } else {
      hideProgress();
    }
    renderFiles(session);
    renderMetadata(session);
    renderResult(session);
  }

  async function refresh() {
    try {
      render(await call(""));
    } catch (err) {
      showError(err.message);
    }
  }

  // Events often come in bursts (a turn's messages, then its status): one GET at a time, and one
  // more after it if something changed meanwhile.
  function scheduleRefresh() {
    if (refreshing) {
      refreshAgain = true;
      return refreshing;
    }
    refreshing = refresh().finally(() => {
      refreshing = null;
      if (refreshAgain) {
        refreshAgain = false;
        scheduleRefresh();
      }
    });
    return refreshing;
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

  async function act(action, value) {
    showError("");
    try {
      const turn = await postJson("/actions", { action, value });
      render(turn.session);
    } catch (err) {
      showError(err.message);
    }
  }

  // --- live updates --------------------------------------------------------------------------------

  function setConnection(lost) {
    disconnected = lost;
    document.getElementById("connection").hidden = !lost;
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    socket = new WebSocket(`${scheme}://${location.host}/ws/sessions/${sessionId}/?after=${lastMessageId}`);
    socket.onopen = () => {
      retryDelay = 1000;
      if (disconnected) {
        // What happened while the connection was down, from the database.
        setConnection(false);
        scheduleRefresh();
      }
    };
    socket.onmessage = (event) => {
      const data = JSON.parse(event.data);
      if (data.type === "message") {
        addMessage(data.message);
        refreshCards();
        if (current) renderSteps(current);
      } else if (data.type === "progress") {
        // A late report of a job that has since finished is not shown.
        if (RUNNING.includes(liveStatus)) setProgress(data.phase, data.percent, data.attempt);
      } else if (data.type === "status") {
        setStatus(data.status);
        showActions(data.status, data.awaiting);
        scheduleRefresh();
      }
    };
    socket.onclose = (event) => {
      if ([4401, 4403, 4404].includes(event.code)) {
        showError("This session is not available to you any more. Reload the page to log in again.");
        return;
      }
      setConnection(true);
      setTimeout(connect, retryDelay);
      retryDelay = Math.min(retryDelay * 2, 30000);
    };
  }

  window.addEventListener("online", () => {
    if (socket && socket.readyState === WebSocket.CLOSED) {
      retryDelay = 1000;
      connect();
    }
  });

  // --- the message box -------------------------------------------------------------------------------

  // One message at a time: a message typed while the last one is being answered stays in the box,
  // and only the text that was sent is cleared once it is answered.
  let sending = false;
  const STILL_ANSWERING = "Your last message is still being answered; send this one once the reply is here.";

  document.getElementById("message-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = messageBox.value.trim();
    if (!text) {
      showError("Type a message first.");
      return;
    }
    if (sending) {
      showError(STILL_ANSWERING);
      return;
    }
    showError("");
    const send = document.getElementById("send");
    sending = true;
    send.disabled = true;
    try {
      const turn = await postJson("/messages", { text });
      if (messageBox.value.trim() === text) messageBox.value = "";
      stopModifying();
      render(turn.session);
    } catch (err) {
      showError(err.message);
    } finally {
      sending = false;
      send.disabled = false;
      if (errorBox.textContent === STILL_ANSWERING) showError("");
      messageBox.focus();
    }
  });

  messageBox.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      document.getElementById("message-form").requestSubmit();
    }
  });

  document.getElementById("actions").addEventListener("click", (event) => {
    const action = event.target.dataset && event.target.dataset.action;
    if (action) act(action);
  });

  document.getElementById("modify-open-panel").addEventListener("click", (event) => {
    event.preventDefault();
    const first = document.querySelector("#metadata .field-edit:not([disabled])");
    if (first) first.focus();
  });

  window.addEventListener("hashchange", followFieldLink);

  // The upload part refreshes the page's view of the session after its own uploads.
  window.nwbportalRefresh = refresh;

  // The two columns fill the screen below the header (portal.css reads --session-top), whatever
  // the header's height once the title, steps and notes have wrapped.
  const sessionHead = document.querySelector(".session-head");
  function measureHeader() {
    if (!sessionHead) return;
    const bottom = sessionHead.getBoundingClientRect().bottom + window.scrollY;
    document.documentElement.style.setProperty("--session-top", `${Math.ceil(bottom)}px`);
  }
  window.addEventListener("resize", measureHeader);
  if (window.ResizeObserver && sessionHead) new ResizeObserver(measureHeader).observe(sessionHead);

  function start() {
    messageBox.dataset.placeholder = messageBox.placeholder;
    measureHeader();
    render(JSON.parse(document.getElementById("initial-session").textContent));
    pinChat();
    // Once the browser has gone to the link's target itself (which would take the focus back).
    if (document.readyState === "complete") followFieldLink();
    else window.addEventListener("load", () => setTimeout(followFieldLink, 0));
    connect();
  }

  // After every script of the page has run, so the result part is there for the first render.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
