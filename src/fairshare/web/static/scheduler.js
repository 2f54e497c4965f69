// The Scheduler page, live: poll /api/scheduler?only=status; update the sample's age and the last poll's
// error every time; when a new sample has landed, swap in /scheduler/live (server-rendered:
// one implementation of the page). A failed poll keeps what is shown and says so.
// The Nodes page is live the same way: its live part is its data-live-url (/nodes/live).
(function () {
  "use strict";
  var root = document.getElementById("scheduler") || document.getElementById("nodes-page");
  if (!root) { return; }
  var every = parseInt(root.getAttribute("data-poll-ms"), 10) || 3000;
  var liveUrl = root.getAttribute("data-live-url") || "/scheduler/live";
  var ageEl = document.getElementById("sample-age");
  var errEl = document.getElementById("poll-error");

  function shownTime() {
    var live = document.getElementById("live");
    return live ? live.getAttribute("data-time-ms") : "";
  }

  function showError(text) {
    if (text) { errEl.textContent = "last poll failed: " + text; errEl.hidden = false; }
    else { errEl.textContent = ""; errEl.hidden = true; }
  }

  function swap() {
    return fetch(liveUrl, {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error(liveUrl + " answered " + r.status); }
      return r.text();
    }).then(function (html) {
      var live = document.getElementById("live");
      var box = document.createElement("div");
      box.innerHTML = html;
      var fresh = box.querySelector("#live");
      if (live && fresh) { live.replaceWith(fresh); }
    });
  }

  function poll() {
    fetch("/api/scheduler?only=status", {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error("/api/scheduler answered " + r.status); }
      return r.json();
    }).then(function (data) {
      ageEl.textContent = data.age_text;
      showError(data.error);
      var time = data.time_ms === null ? "" : String(data.time_ms);
      return time !== shownTime() ? swap() : null;
    }).catch(function (e) {
      showError("the page could not reach the watcher (" + e.message + ")");
    }).then(function () { window.setTimeout(poll, every); });
  }
  window.setTimeout(poll, every);
})();
