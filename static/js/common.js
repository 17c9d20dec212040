// What the session page's scripts share: the CSRF token, sizes in words (in the units the server
// uses, conversions/nwb/quantities.py) and JSON calls to the API whose errors carry the server's
// plain message. Loaded before session.js, upload.js and result.js.
(function () {
  "use strict";

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function formatBytes(bytes) {
    const units = [["GB", 1073741824], ["MB", 1048576], ["kB", 1024]];
    for (const [unit, size] of units) {
      if (bytes >= size) return `${(bytes / size).toFixed(1)} ${unit}`;
    }
    return `${bytes} bytes`;
  }

  // An Error with the server's `detail` and the HTTP status when the answer is not a success.
  async function callJson(url, options = {}) {
    const response = await fetch(url, {
      credentials: "same-origin",
      ...options,
      headers: { "X-CSRFToken": csrfToken(), ...(options.headers || {}) },
    });
    const body = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = new Error(body.detail || `The server answered ${response.status}. Please try again.`);
      error.status = response.status;
      throw error;
    }
    return body;
  }

  window.nwbportal = { csrfToken, formatBytes, callJson };
})();
