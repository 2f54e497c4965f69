// A queue's history: two uPlot charts (memory, vcores) of the bucket averages, shaded where the
// queue was in contention and short of threshold x share, red ticks at preemptions. Drag to
// zoom: the span is asked of /api/queue/{name} again (finer buckets) and put in the address;
// double-click goes back to the page's own window.
(function () {
  "use strict";
  var holder = document.getElementById("queue-data");
  if (!holder || typeof uPlot === "undefined") { return; }
  var first = JSON.parse(holder.textContent);
  var LINES = [
    ["steady_fair_share", "steady fair share", "#333333", [6, 3]],
    ["fair_share", "instantaneous fair share", "#1f5fbf", [3, 3]],
    ["used", "used", "#2e9e2e", null],
    ["demand", "demand", "#8a4fbf", null],
    ["max_share", "max share", "#999999", [1, 3]]
  ];
  var charts = [];
  var shown = {data: first};  // the answer drawn: its window is the x axis, data or not

  function columns(data, suffix, scale) {
    var t = data.times_ms.map(function (ms) { return ms / 1000; });
    var out = [t];
    LINES.forEach(function (l) {
      var ys = data.averages[l[0] + "_" + suffix] || [];
      out.push(t.map(function (_x, i) {
        var v = ys[i];
        return v === null || v === undefined ? null : v / scale;
      }));
    });
    return out;
  }

  function shade(u) {
    var data = shown.data, ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.fillStyle = "rgba(214, 39, 40, 0.13)";
    for (var i = 0; i < data.short.length; i++) {
      if (!data.short[i]) { continue; }
      var a = data.times_ms[i] / 1000;
      var b = i + 1 < data.times_ms.length ? data.times_ms[i + 1] / 1000 : data.end_ms / 1000;
      var x0 = u.valToPos(a, "x", true), x1 = u.valToPos(b, "x", true);
      ctx.fillRect(x0, top, Math.max(1, x1 - x0), h);
    }
    ctx.restore();
  }

  function marks(u) {
    var ctx = u.ctx, top = u.bbox.top, h = u.bbox.height;
    ctx.save();
    ctx.setLineDash([]);
    ctx.strokeStyle = "#d62728";
    shown.data.preemptions.forEach(function (p) {
      var x = u.valToPos(p.time_ms / 1000, "x", true);
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + h); ctx.stroke();
      ctx.lineWidth = 4;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + Math.min(h, 14)); ctx.stroke();
    });
    ctx.restore();
  }

  function zoomTo(u) {
    if (u.select.width < 3) { return; }
    var from = Math.round(u.posToVal(u.select.left, "x") * 1000);
    var to = Math.round(u.posToVal(u.select.left + u.select.width, "x") * 1000);
    u.setSelect({left: 0, top: 0, width: 0, height: 0}, false);
    load(from, to, true);
  }

  function make(id, suffix, unit, scale, data) {
    var el = document.getElementById(id);
    var series = [{}].concat(LINES.map(function (l) {
      return {label: l[1], stroke: l[2], width: l[0] === "used" ? 2 : 1.5, dash: l[3] || undefined,
              spanGaps: false};
    }));
    var opts = {
      width: Math.max(400, Math.min(1100, el.clientWidth || 1000)), height: 300,
      series: series,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), first.timezone); },
      scales: {x: {time: true, range: function () {
        return [shown.data.start_ms / 1000, shown.data.end_ms / 1000];
      }}, y: {range: function (_u, _min, max) { return [0, max > 0 ? max * 1.05 : 1]; }}},
      axes: [{}, {label: unit, size: 70}],
      cursor: {sync: {key: "queue"}, drag: {x: true, y: false, setScale: false}},
      hooks: {drawClear: [shade], draw: [marks], setSelect: [zoomTo]}
    };
    var u = new uPlot(opts, columns(data, suffix, scale), el);
    u.fairshareSuffix = suffix;
    u.fairshareScale = scale;
    u.over.addEventListener("dblclick", function () { load(first.start_ms, first.end_ms, true); });
    return u;
  }

  function draw(data) {
    shown.data = data;
    charts.forEach(function (u) {
      u.setData(columns(data, u.fairshareSuffix, u.fairshareScale));
    });
  }

  function load(from, to, remember) {
    var url = "/api/queue/" + encodeURIComponent(first.queue).replace(/%2E/g, ".") +
        "?from=" + from + "&to=" + to;
    fetch(url, {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error(url + " answered " + r.status); }
      return r.json();
    }).then(function (data) {
      draw(data);
      if (remember) {
        var q = new URLSearchParams(window.location.search);
        q.set("from", String(from)); q.set("to", String(to));
        window.history.replaceState(null, "", window.location.pathname + "?" + q.toString());
      }
    }).catch(function (e) { console.warn(e.message); });
  }

  charts.push(make("chart-memory", "mb", first.memory_unit, first.mb_per_unit, first));
  charts.push(make("chart-vcores", "vcores", "vcores", 1, first));
  window.fairshareCharts = charts;
})();
