// The result panel of the session page: a plot of the converted file's first seconds, its
// validation issues grouped by importance (linked to the metadata fields that fix them), its
// structure as a tree, and the downloads (with the videos kept beside the NWB file, which it links
// to by their path relative to itself). The session page calls
// window.nwbportalResult.render(session) with the session JSON whenever the session changes.
// Issue links point at #field-<name>, which the session page follows to the metadata panel.
(function () {
  "use strict";
  const { formatBytes, callJson } = window.nwbportal;

  const box = document.getElementById("result");
  if (!box) return;
  const api = `/api/sessions/${box.closest("[data-session-id]").dataset.sessionId}`;
  const el = (id) => document.getElementById(id);
  let shown = null; // "attempts/2" or "previews/1": the file on display
  let issuesKey = null; // attempt and validation state whose issues are on display
  let treeLoaded = null; // the file whose tree is in the panel

  function node(tag, attributes = {}, ...children) {
    const element = document.createElement(tag);
    Object.entries(attributes).forEach(([name, value]) => {
      if (name === "text") element.textContent = value;
      else element.setAttribute(name, value);
    });
    children.filter((child) => child !== null && child !== undefined).forEach((child) => element.append(child));
    return element;
  }

  // The newest converted file; before any conversion succeeded, the newest preview's.
  function chosenFile(session) {
    if (session.output) {
      const attempt = session.attempts.find((a) => a.number === session.output.attempt);
      return {
        kind: "attempts", number: session.output.attempt, url: session.output.url, size: session.output.size_bytes,
        beside: session.output.beside || [], attempt,
      };
    }
    const previews = (session.previews || []).filter((p) => p.url);
    if (!previews.length) return null;
    const preview = previews[previews.length - 1];
    return {
      kind: "previews", number: preview.number, url: preview.url, size: preview.size_bytes || 0,
      beside: preview.beside || [], attempt: null,
    };
  }

  function render(session) {
    const file = chosenFile(session);
    box.hidden = !file;
    if (!file) { shown = null; return; }
    const key = `${file.kind}/${file.number}`;
    if (key !== shown) {
      shown = key;
      showFile(file);
    }
    if (file.attempt) showValidation(file.attempt);
    else el("result-issues-box").hidden = true;
  }

  function showFile(file) {
    const preview = file.kind === "previews";
    el("result-what").textContent = preview
      ? `Preview ${file.number}: the first seconds only, not validated and not the file to share.`
      : `Attempt ${file.number}, ${formatBytes(file.size)}.`;
    const links = [[file.url, preview ? `Download preview ${file.number}` : "Download the NWB file"]];
    if (!preview) {
      links.push([`${api}/report.html`, "Report (page)"]);
      links.push([`${api}/report.html?download=1`, "Download report (HTML)"]);
      links.push([`${api}/report.json?download=1`, "Download report (JSON)"]);
    }
    el("result-links").replaceChildren(...links.map(([href, text]) => {
      const link = node("a", { href, text });
      if (href.endsWith("report.html")) { link.target = "_blank"; link.rel = "noopener"; }
      return node("li", {}, link);
    }));
    showBeside(file.beside);

    const base = `${api}/${file.kind}/${file.number}`;
    const plot = el("result-plot");
    const problem = el("result-plot-problem");
    problem.hidden = true;
    plot.alt = `Plot of the first seconds of ${preview ? "preview" : "attempt"} ${file.number}: a few channels in physical units.`;
    const link = el("result-plot-link");
    link.hidden = false;
    plot.onerror = async () => {
      // The image's own error says nothing; the same address answers with the reason as JSON.
      link.hidden = true;
      problem.hidden = false;
      try {
        await callJson(plot.src);
        problem.textContent = "The plot could not be shown.";
      } catch (err) {
        problem.textContent = `No plot: ${err.message}`;
      }
    };
    plot.src = `${base}/plot.svg`;
    link.href = plot.src;
    el("result-plot-caption").textContent = preview
      ? "The preview's first second; each channel scaled to its own range."
      : "The first second of the file; each channel scaled to its own range.";

    treeLoaded = null;
    el("result-tree").replaceChildren();
    if (el("result-tree-box").open) loadTree();
  }

  // The videos beside the NWB file: downloaded one by one, they must go back into the folder whose
  // name the file gives them ("<stem>_video/<name>"), next to the NWB file, or the links break.
  function showBeside(beside) {
    const box = el("result-beside");
    box.hidden = !beside.length;
    if (!beside.length) return;
    const folder = beside[0].path.split("/")[0];
    const one = beside.length === 1;
    el("result-beside-note").replaceChildren(
      `The NWB file links to ${one ? "this video" : "these videos"} by ${one ? "its" : "their"} relative path, ` +
        `so keep ${one ? "it" : "them"} in a folder named `,
      node("code", { text: folder }),
      " next to the NWB file."
    );
    el("result-beside-links").replaceChildren(...beside.map((file) => node("li", {},
      node("a", { href: file.url, text: `Download ${file.path}` }),
      node("span", { class: "result-muted", text: ` (${formatBytes(file.size_bytes)})` }))));
  }

  async function loadTree() {
    if (!shown || treeLoaded === shown) return;
    const wanted = shown;
    treeLoaded = wanted;
    const holder = el("result-tree");
    holder.replaceChildren(node("p", { class: "result-muted", text: "Reading the file's structure…" }));
    try {
      const tree = await callJson(`${api}/${wanted}/tree`);
      if (shown !== wanted) return;
      const list = node("ul", { class: "tree" }, treeItem(tree.root, 0));
      const parts = [list];
      if (tree.truncated) {
        parts.push(node("p", { class: "result-muted", text: `Only the first ${tree.nodes} entries are listed; the file has more.` }));
      }
      holder.replaceChildren(...parts);
    } catch (err) {
      treeLoaded = null;
      holder.replaceChildren(node("p", { class: "result-problem", text: err.message }));
    }
  }

  function describe(entry) {
    const parts = [];
    if (entry.kind === "dataset") {
      parts.push(`${(entry.shape || []).length ? entry.shape.map((n) => n.toLocaleString()).join(" × ") : "scalar"} ${entry.dtype}`);
      if (entry.unit) parts.push(entry.unit);
      if (entry.conversion !== undefined && entry.conversion !== 1) parts.push(`× ${entry.conversion}`);
      if (entry.compression) parts.push(entry.compression);
    } else if (entry.series) {
      const s = entry.series;
      if (s.unit) parts.push(s.unit);
      parts.push(s.rate ? `${s.rate.toLocaleString()} Hz from ${s.starting_time} s` : `${(s.timestamps || 0).toLocaleString()} timestamps`);
      if (s.conversion !== undefined && s.conversion !== 1) parts.push(`conversion ${s.conversion}`);
    } else if (entry.kind === "link" || entry.kind === "external_link") {
      parts.push(`→ ${entry.target}`);
    }
    return parts.join(", ");
  }

  function label(entry) {
    const line = node("span", { class: "tree-line" }, node("span", { class: "tree-name", text: entry.name }));
    if (entry.neurodata_type) line.append(" ", node("span", { class: "tree-type", text: entry.neurodata_type }));
    const about = describe(entry);
    if (about) line.append(" ", node("span", { class: "tree-meta", text: about }));
    if (entry.value !== undefined && entry.value !== null) {
      const value = Array.isArray(entry.value) ? entry.value.join("; ") : String(entry.value);
      line.append(" ", node("span", { class: "tree-value", text: value }));
    }
    if (entry.omitted) line.append(" ", node("span", { class: "tree-meta", text: `(${entry.omitted})` }));
    return line;
  }

  function treeItem(entry, depth) {
    if (entry.kind !== "group" || !entry.children.length) return node("li", {}, label(entry));
    const details = node("details", {}, node("summary", {}, label(entry)));
    if (depth < 1) details.open = true;
    const children = entry.children.map((child) => treeItem(child, depth + 1));
    if (entry.more) children.push(node("li", { class: "result-muted", text: `… and ${entry.more} more` }));
    details.append(node("ul", {}, ...children));
    return node("li", {}, details);
  }

  async function showValidation(attempt) {
    const holder = el("result-issues");
    el("result-issues-box").hidden = false;
    if (attempt.validation === "pending" || attempt.validation === "running") {
      issuesKey = null;
      holder.replaceChildren(node("p", { class: "result-muted", text: "The file is being checked…" }));
      return;
    }
    const key = `${attempt.number}:${attempt.validation}`;
    if (key === issuesKey) return;
    issuesKey = key;
    try {
      const report = await callJson(`${api}/report.json`);
      if (issuesKey !== key) return;
      holder.replaceChildren(...issueGroups(report.validation));
    } catch (err) {
      issuesKey = null;
      holder.replaceChildren(node("p", { class: "result-problem", text: err.message }));
    }
  }

  function issueGroups(validation) {
    const parts = [node("p", { class: `result-outcome ${validation.outcome || ""}`, text: validation.outcome_label })];
    validation.groups.forEach((group) => {
      const items = group.issues.map((issue) => {
        const item = node("li", { class: "result-issue" }, node("p", { text: issue.explanation }));
        if (issue.fields.length) {
          const fix = node("p", {}, "Set ");
          issue.fields.forEach((field, index) => {
            if (index) fix.append(", ");
            fix.append(node("a", { href: `#${field.anchor}`, "data-field": field.name, text: field.label }));
          });
          fix.append(" in the metadata.");
          item.append(fix);
        }
        item.append(node("p", { class: "result-muted" }, node("code", { text: issue.check_name }),
          issue.object_name ? ` · ${issue.object_name}` : "", issue.location ? ` · ${issue.location}` : ""));
        return item;
      });
      parts.push(node("details", { class: `result-group importance-${group.importance}`, open: "" },
        node("summary", { text: `${group.label} (${group.issues.length})` }), node("ul", {}, ...items)));
    });
    return parts;
  }

  el("result-tree-box").addEventListener("toggle", () => {
    if (el("result-tree-box").open) loadTree();
  });

  window.nwbportalResult = { render };
})();
