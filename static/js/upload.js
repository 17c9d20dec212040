// Adding files to a session (templates/conversions/_upload.html): uploads in pieces that resume
// after a lost connection, and imports from the lab's server storage.
//
// A file is declared (path and size), then sent piece by piece, each at the offset the server has
// reached; the server answers 409 with the offset it expects when they disagree. When files are
// chosen again after an interruption, a file is taken for the one whose upload was cut off when its
// path (or, from the file picker, its name) and size match and the last bytes the server received
// are the same (SHA-256, where the browser offers it); otherwise it is sent from the start.
(function () {
  "use strict";
  const { csrfToken, formatBytes, callJson } = window.nwbportal;
  const root = document.getElementById("uploader");
  if (!root) return;
  const sessionId = root.dataset.sessionId;
  const labId = root.dataset.labId;
  const uploadsUrl = `/api/sessions/${sessionId}/uploads`;
  const $ = (id) => document.getElementById(id);
  const errorBox = $("uploader-error");
  const MAX_RETRIES = 6;

  // Files chosen on this page, by the path they are declared under, so "Resume" needs no new choice.
  const chosen = new Map();
  let running = false;
  let stopRequested = false;

  // --- small helpers -------------------------------------------------------------------------------

  function encodePath(path) {
    return path.split("/").map(encodeURIComponent).join("/");
  }

  function showError(text) {
    errorBox.textContent = text || "";
    errorBox.hidden = !text;
  }

  let hideProgress = null;

  function refreshSession() {
    if (typeof window.nwbportalRefresh === "function") window.nwbportalRefresh();
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function tailHash(file, received) {
    if (!(window.crypto && crypto.subtle)) return null; // only over HTTPS or on this machine
    const start = Math.max(0, received - 64 * 1024);
    const digest = await crypto.subtle.digest("SHA-256", await file.slice(start, received).arrayBuffer());
    return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  }

  // --- choosing files ------------------------------------------------------------------------------

  function fromInput(input) {
    return [...input.files].map((file) => ({ path: file.webkitRelativePath || file.name, file }));
  }

  // Files and folders dropped, with their paths inside the dropped folders.
  async function fromDrop(dataTransfer) {
    const entries = [...dataTransfer.items]
      .filter((item) => item.kind === "file")
      .map((item) => (item.webkitGetAsEntry ? item.webkitGetAsEntry() : null));
    if (!entries.length || entries.some((entry) => !entry)) {
      return [...dataTransfer.files].map((file) => ({ path: file.name, file }));
    }
    const found = [];
    async function walk(entry) {
      if (entry.isFile) {
        const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
        found.push({ path: entry.fullPath.replace(/^\/+/, ""), file });
      } else if (entry.isDirectory) {
        const reader = entry.createReader();
        // readEntries gives a folder's entries in batches until it gives none.
        for (;;) {
          const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
          if (!batch.length) break;
          for (const child of batch) await walk(child);
        }
      }
    }
    for (const entry of entries) await walk(entry);
    return found;
  }

  // A file chosen with the file picker has only its name: it takes the path of the interrupted
  // upload with the same name and size, if there is exactly one.
  function matchPending(selection, pending) {
    const byPath = new Set(pending.map((u) => u.path));
    return selection.map(({ path, file }) => {
      if (byPath.has(path)) return { path, file };
      const same = pending.filter((u) => u.path.split("/").pop() === file.name && u.size_bytes === file.size);
      return same.length === 1 ? { path: same[0].path, file } : { path, file };
    });
  }

  // --- sending -------------------------------------------------------------------------------------

  function row(path, size) {
    const item = document.createElement("li");
    const name = document.createElement("span");
    name.className = "uploader-name";
    name.textContent = path;
    name.title = path;
    const bar = document.createElement("progress");
    bar.max = size || 1;
    bar.value = 0;
    bar.setAttribute("aria-label", `Upload of ${path}`);
    const note = document.createElement("span");
    note.className = "uploader-note";
    item.append(name, bar, note);
    $("uploader-list").appendChild(item);
    return { bar, note, item };
  }

  function putPiece(path, offset, blob, onProgress) {
    return new Promise((resolve) => {
      const request = new XMLHttpRequest();
      request.open("PUT", `${uploadsUrl}/${encodePath(path)}?offset=${offset}`);
      request.setRequestHeader("X-CSRFToken", csrfToken());
      request.setRequestHeader("Content-Type", "application/octet-stream");
      request.upload.onprogress = (event) => onProgress(event.loaded);
      request.onload = () => {
        let body = {};
        try { body = JSON.parse(request.responseText); } catch (_) { /* not JSON */ }
        resolve({ status: request.status, body });
      };
      request.onerror = () => resolve({ status: 0, body: {} });
      request.send(blob);
    });
  }

  async function send(selection) {
    if (running) { showError("An upload is already running; wait for it or pause it first."); return; }
    if (!selection.length) { showError("No files were found in what was chosen."); return; }
    running = true;
    stopRequested = false;
    showError("");
    $("uploader-incomplete").hidden = true;
    $("uploader-list").replaceChildren();
    clearTimeout(hideProgress);
    $("uploader-progress").hidden = false;
    $("uploader-stop").hidden = false;
    $("uploader-stop").disabled = false;
    try {
      await sendAll(selection);
    } catch (err) {
      showError(err.message);
    } finally {
      running = false;
      $("uploader-stop").disabled = true;
      await showIncomplete();
    }
  }

  async function sendAll(initial) {
    const before = await callJson(uploadsUrl);
    const selection = matchPending(initial, before.uploads);
    selection.forEach(({ path, file }) => chosen.set(path, file));
    const declare = () => callJson(uploadsUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ files: selection.map(({ path, file }) => ({ path, size_bytes: file.size })) }),
    });
    let declared = await declare();
    // A file resumed only when the bytes the server has are the same as the file's.
    const stale = [];
    for (const upload of declared.uploads) {
      const file = chosen.get(upload.path);
      if (file && upload.received_bytes > 0 && upload.tail_sha256) {
        if ((await tailHash(file, upload.received_bytes)) === upload.tail_sha256) continue;
        if (window.crypto && crypto.subtle) stale.push(upload.path);
      }
    }
    if (stale.length) {
      for (const path of stale) await callJson(`${uploadsUrl}/${encodePath(path)}`, { method: "DELETE" });
      declared = await declare();
    }
    const pieceBytes = declared.piece_bytes;
    const mine = declared.uploads.filter((u) => chosen.has(u.path));
    const total = mine.reduce((sum, u) => sum + u.size_bytes, 0);
    let done = mine.reduce((sum, u) => sum + u.received_bytes, 0);
    const overall = (extra) => {
      const value = total ? (100 * (done + extra)) / total : 100;
      $("uploader-overall-bar").value = value;
      $("uploader-overall-text").textContent = `${formatBytes(done + extra)} of ${formatBytes(total)}`;
    };
    overall(0);
    let finished = declared.detection_started;
    for (const upload of mine) {
      const file = chosen.get(upload.path);
      const view = row(upload.path, upload.size_bytes);
      if (stale.includes(upload.path)) view.note.textContent = "not the file sent before: sent from the start";
      let offset = upload.received_bytes;
      view.bar.value = offset;
      let failures = 0;
      let mismatches = 0;
      while (offset < upload.size_bytes) {
        if (stopRequested) throw new Error("Paused. Press Resume to go on; nothing received is lost.");
        const end = Math.min(offset + pieceBytes, upload.size_bytes);
        const answer = await putPiece(upload.path, offset, file.slice(offset, end), (loaded) => {
          view.bar.value = offset + loaded;
          overall(loaded);
        });
        if (answer.status === 200) {
          done += end - offset;
          offset = end;
          failures = 0;
          view.bar.value = offset;
          overall(0);
          if (answer.body.detection_started) finished = true;
          continue;
        }
        if (answer.status === 409 && answer.body.expected_offset !== undefined && answer.body.expected_offset !== null) {
          if (++mismatches > 3) throw new Error(`The server and this page disagree about ${upload.path}; discard it and send it again.`);
          done += answer.body.expected_offset - offset;
          offset = answer.body.expected_offset;
          continue;
        }
        if (answer.status === 0 || (answer.status >= 500 && answer.status !== 503)) {
          // Lost connection or a passing server error: wait, then ask where the server stands.
          if (++failures > MAX_RETRIES) {
            throw new Error(`The connection was lost while sending ${upload.path}. Press Resume to send the rest.`);
          }
          view.note.textContent = "connection lost, trying again…";
          await sleep(1000 * 2 ** (failures - 1));
          try {
            const now = (await callJson(uploadsUrl)).uploads.find((u) => u.path === upload.path);
            if (!now) break;
            done += now.received_bytes - offset;
            offset = now.received_bytes;
            view.note.textContent = "";
          } catch (_) { /* still offline: the next round waits longer */ }
          continue;
        }
        throw new Error(answer.body.detail || `The server refused ${upload.path} (${answer.status}).`);
      }
      view.bar.value = upload.size_bytes;
      view.note.textContent = "received";
      if (upload.missing_bytes === 0 && offset === upload.size_bytes && !finished) {
        // Everything was in already; a piece of nothing asks the server to put it in place.
        const answer = await putPiece(upload.path, offset, new Blob([]), () => {});
        if (answer.status !== 200) throw new Error(answer.body.detail || `The server refused ${upload.path}.`);
        if (answer.body.detection_started) finished = true;
      }
    }
    $("uploader-overall-text").textContent = finished
      ? `All ${mine.length} file${mine.length === 1 ? "" : "s"} received; the recording is being looked at.`
      : "Received. Other files declared earlier are still missing (see below).";
    selection.forEach(({ path }) => chosen.delete(path));
    refreshSession();
    if (finished) {
      // The files are in the session's list and the chat tells what the recording is; the bars
      // have said what they had to.
      $("uploader-stop").hidden = true;
      hideProgress = setTimeout(() => { $("uploader-progress").hidden = true; }, 4000);
    }
  }

  // --- interrupted uploads -------------------------------------------------------------------------

  async function showIncomplete() {
    let pending;
    try {
      pending = (await callJson(uploadsUrl)).uploads;
    } catch (err) {
      showError(err.message);
      return;
    }
    const box = $("uploader-incomplete");
    const missing = pending.filter((u) => u.missing_bytes > 0);
    if (!pending.length) { box.hidden = true; return; }
    $("uploader-incomplete-text").textContent = missing.length
      ? `${missing.length} file${missing.length === 1 ? " was" : "s were"} not fully received. Press Resume (choose the same files or folder again if asked): only the missing part is sent.`
      : "Every file was received, but they were not added yet (a conversion was running). Press Resume to add them.";
    $("uploader-incomplete-list").replaceChildren(...pending.map((u) => {
      const item = document.createElement("li");
      item.textContent = `${u.path}: ${formatBytes(u.received_bytes)} of ${formatBytes(u.size_bytes)} received`;
      item.title = u.path;
      return item;
    }));
    box.hidden = false;
    box.dataset.paths = JSON.stringify(pending.map((u) => u.path));
  }

  $("uploader-resume").addEventListener("click", () => {
    const paths = JSON.parse($("uploader-incomplete").dataset.paths || "[]");
    const known = paths.filter((path) => chosen.has(path));
    if (known.length === paths.length && known.length) {
      send(known.map((path) => ({ path, file: chosen.get(path) })));
      return;
    }
    showError("");
    $("uploader-incomplete-text").textContent =
      "This page no longer has the files: choose the same files or folder again (or drop them). Only the missing parts will be sent.";
    (paths.some((path) => path.includes("/")) ? $("uploader-folder") : $("uploader-files")).focus();
  });

  $("uploader-discard").addEventListener("click", async () => {
    const paths = JSON.parse($("uploader-incomplete").dataset.paths || "[]");
    showError("");
    try {
      for (const path of paths) await callJson(`${uploadsUrl}/${encodePath(path)}`, { method: "DELETE" });
    } catch (err) {
      showError(err.message);
    }
    await showIncomplete();
    refreshSession();
  });

  $("uploader-stop").addEventListener("click", () => { stopRequested = true; });

  // --- wiring the choices --------------------------------------------------------------------------

  for (const id of ["uploader-files", "uploader-folder"]) {
    $(id).addEventListener("change", (event) => {
      const selection = fromInput(event.target);
      event.target.value = "";
      send(selection);
    });
  }

  const drop = $("uploader-drop");
  drop.addEventListener("dragover", (event) => { event.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", async (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    try {
      send(await fromDrop(event.dataTransfer));
    } catch (err) {
      showError(`The dropped files could not be read (${err.message || err}). Choose them with the pickers instead.`);
    }
  });
  drop.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") { event.preventDefault(); $("uploader-files").click(); }
  });
  drop.addEventListener("click", () => $("uploader-files").click());

  // --- the lab's server storage --------------------------------------------------------------------

  const storage = $("uploader-storage");
  const selected = new Set();
  let folder = "";

  function crumb(label, path, current) {
    const item = document.createElement("li");
    if (current) {
      item.textContent = label;
      item.setAttribute("aria-current", "location");
    } else {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link";
      button.textContent = label;
      button.addEventListener("click", () => browse(path));
      item.appendChild(button);
    }
    return item;
  }

  function updateSelected() {
    $("uploader-import").disabled = !selected.size;
    $("uploader-selected").textContent = selected.size ? `${selected.size} selected` : "";
  }

  async function browse(path) {
    showError("");
    let listing;
    try {
      listing = await callJson(`/api/labs/${labId}/storage?path=${encodeURIComponent(path)}`);
    } catch (err) {
      showError(err.message);
      return;
    }
    folder = listing.path;
    const parts = folder ? folder.split("/") : [];
    $("uploader-crumbs").replaceChildren(
      crumb("Storage", "", !parts.length),
      ...parts.map((part, i) => crumb(part, parts.slice(0, i + 1).join("/"), i === parts.length - 1)),
    );
    $("uploader-truncated").hidden = !listing.truncated;
    if (!listing.entries.length) {
      const empty = document.createElement("li");
      empty.textContent = "This folder is empty.";
      $("uploader-entries").replaceChildren(empty);
      return;
    }
    $("uploader-entries").replaceChildren(...listing.entries.map((entry, i) => {
      const full = folder ? `${folder}/${entry.name}` : entry.name;
      const item = document.createElement("li");
      item.className = `uploader-entry ${entry.kind}`;
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = `uploader-entry-${i}`;
      box.checked = selected.has(full);
      box.addEventListener("change", () => {
        if (box.checked) selected.add(full); else selected.delete(full);
        updateSelected();
      });
      const label = document.createElement("label");
      label.htmlFor = box.id;
      label.className = "uploader-name";
      label.textContent = entry.kind === "folder" ? `${entry.name}/` : entry.name;
      label.title = full;
      const facts = document.createElement("span");
      facts.className = "uploader-note";
      const when = new Date(entry.modified).toLocaleString();
      facts.textContent = entry.kind === "file" ? `${formatBytes(entry.size_bytes)} · ${when}` : when;
      item.append(box, label, facts);
      if (entry.kind === "folder") {
        const open = document.createElement("button");
        open.type = "button";
        open.className = "link";
        open.textContent = "Open";
        open.setAttribute("aria-label", `Open folder ${entry.name}`);
        open.addEventListener("click", () => browse(full));
        item.appendChild(open);
      }
      return item;
    }));
  }

  if (storage) {
    storage.addEventListener("toggle", () => { if (storage.open) browse(folder); });
    $("uploader-import").addEventListener("click", async () => {
      const button = $("uploader-import");
      button.disabled = true;
      showError("");
      $("uploader-selected").textContent = `Copying ${selected.size} item${selected.size === 1 ? "" : "s"} on the server…`;
      try {
        await callJson(`/api/sessions/${sessionId}/storage-imports`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ paths: [...selected] }),
        });
        selected.clear();
        await browse(folder);
        $("uploader-selected").textContent = "Imported; the recording is being looked at.";
        refreshSession();
      } catch (err) {
        showError(err.message);
        updateSelected();
      }
    });
  }

  showIncomplete();
})();
