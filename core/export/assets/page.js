(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("session-data").textContent);
  var N = data.n, H = data.h, under = data.u || {}, count = N.length;
  var ROW = 22, CHUNK = 150;
  var parent = new Int32Array(count), kids = new Array(count), index = Object.create(null);
  var i, j;
  for (i = 0; i < count; i++) {
    parent[i] = N[i][0];
    index[N[i][4]] = i;
    if (N[i][0] >= 0) { (kids[N[i][0]] || (kids[N[i][0]] = [])).push(i); }
  }
  // Pre-order and depth (depth grows at branch points only, as in the app), without recursion.
  var order = [], depth = new Int32Array(count), roots = [];
  for (i = 0; i < count; i++) { if (parent[i] < 0) { roots.push(i); } }
  var stack = [];
  for (i = roots.length - 1; i >= 0; i--) { depth[roots[i]] = roots.length > 1 ? 1 : 0; stack.push(roots[i]); }
  while (stack.length) {
    var n = stack.pop(), c = kids[n];
    order.push(n);
    if (c) {
      for (j = c.length - 1; j >= 0; j--) { depth[c[j]] = depth[n] + (c.length > 1 ? 1 : 0); stack.push(c[j]); }
    }
  }
  var leaf = data.leaf, selected = data.leaf, onPath = new Uint8Array(count), path = [];
  var treeBox = document.getElementById("tree"), inner = document.getElementById("tree-inner");
  var results = document.getElementById("results"), main = document.getElementById("messages");
  var more = document.getElementById("more"), search = document.getElementById("search");
  var mode = document.getElementById("mode"), countBox = document.getElementById("count");
  var visible = [], rendered = 0, texts = null;

  function pathTo(n) { var p = []; while (n >= 0) { p.push(n); n = parent[n]; } return p.reverse(); }
  function leafBelow(n) { while (kids[n] && kids[n].length) { n = kids[n][kids[n].length - 1]; } return n; }

  var HIDDEN_BY_DEFAULT = { label: 1, custom: 1, model_change: 1, thinking_level_change: 1 };
  function shown(n) {
    var m = mode.value, t = N[n][5];
    if (n === leaf || n === selected) { return true; }
    if (m === "all") { return true; }
    if (m === "user") { return N[n][1] === "user"; }
    if (m === "labeled") { return !!N[n][3]; }
    if (HIDDEN_BY_DEFAULT[t]) { return false; }
    if (m === "no-tools" && (N[n][1] === "tool")) { return false; }
    return true;
  }
  function refilter() {
    visible = [];
    for (var k = 0; k < order.length; k++) { if (shown(order[k])) { visible.push(order[k]); } }
    inner.style.height = (visible.length * ROW) + "px";
    inner.textContent = "";
    drawRows();
  }
  function drawRows() {
    var first = Math.max(0, Math.floor(treeBox.scrollTop / ROW) - 20);
    var last = Math.min(visible.length, first + Math.ceil(treeBox.clientHeight / ROW) + 40);
    inner.textContent = "";
    var frag = document.createDocumentFragment();
    for (var k = first; k < last; k++) {
      var n = visible[k], row = document.createElement("div");
      row.className = "row" + (onPath[n] ? " on-path" : "") + (n === selected ? " selected" : "");
      row.style.top = (k * ROW) + "px";
      row.style.paddingLeft = (4 + depth[n] * 12) + "px";
      row.dataset.i = n;
      var dot = document.createElement("span");
      dot.className = "k " + N[n][1];
      var text = document.createElement("span");
      text.className = "pv";
      text.textContent = N[n][2];
      row.appendChild(dot);
      row.appendChild(text);
      if (N[n][3]) {
        var lb = document.createElement("span");
        lb.className = "lb";
        lb.textContent = N[n][3];
        row.appendChild(lb);
      }
      frag.appendChild(row);
    }
    inner.appendChild(frag);
  }
  function renderUpTo(limit) {
    var html = [];
    while (rendered < path.length && (rendered < limit)) {
      var n = path[rendered++];
      if (H[n]) { html.push(H[n]); }
    }
    if (html.length) { more.insertAdjacentHTML("beforebegin", html.join("")); }
    more.hidden = rendered >= path.length;
  }
  function showPath(target, jump) {
    var owner = under[target];
    var n = owner !== undefined ? owner : target;
    if (!onPath[n]) { leaf = leafBelow(n); }
    onPath.fill(0);
    path = pathTo(leaf);
    for (var k = 0; k < path.length; k++) { onPath[path[k]] = 1; }
    selected = target;
    var old = main.querySelectorAll(".entry");
    for (k = 0; k < old.length; k++) { old[k].remove(); }
    rendered = 0;
    renderUpTo(jump ? Math.max(CHUNK, path.indexOf(n) + CHUNK) : CHUNK);
    refilter();
    var el = jump ? document.getElementById("e-" + N[n][4]) : null;
    if (el) {
      var prev = main.querySelector(".entry.target");
      if (prev) { prev.classList.remove("target"); }
      el.classList.add("target");
      el.scrollIntoView({ block: "start" });
    }
    var at = visible.indexOf(target);
    if (at >= 0 && (at * ROW < treeBox.scrollTop || at * ROW > treeBox.scrollTop + treeBox.clientHeight - ROW)) {
      treeBox.scrollTop = Math.max(0, at * ROW - treeBox.clientHeight / 2);
      drawRows();
    }
  }
  function fromHash() {
    var h;
    // A fragment that does not decode ("#%", typed or from a broken link) names no entry: ignore it.
    try { h = decodeURIComponent(location.hash.slice(1)); } catch (err) { return false; }
    if (h.indexOf("e-") === 0 && index[h.slice(2)] !== undefined) { showPath(index[h.slice(2)], true); return true; }
    return false;
  }
  function go(n) {
    var h = "#e-" + encodeURIComponent(N[n][4]);
    if (location.hash === h) { showPath(n, true); } else { location.hash = h; }
  }
  function plain(html) {
    return html.replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"")
      .replace(/&#x27;/g, "'").replace(/&amp;/g, "&");
  }
  function runSearch() {
    var q = search.value.trim().toLowerCase();
    results.textContent = "";
    if (!q) { results.hidden = true; treeBox.hidden = false; countBox.textContent = ""; drawRows(); return; }
    if (!texts) {
      texts = new Array(count);
      for (var k = 0; k < count; k++) { texts[k] = (N[k][2] + " " + (H[k] ? plain(H[k]) : "") + " " + (N[k][3] || "")).toLowerCase(); }
    }
    treeBox.hidden = true; results.hidden = false;
    var found = 0, frag = document.createDocumentFragment();
    for (var k2 = 0; k2 < order.length; k2++) {
      var n = order[k2], t = texts[n], at = t.indexOf(q);
      if (at < 0) { continue; }
      found++;
      if (found > 500) { continue; }
      var row = document.createElement("div");
      row.className = "result-row";
      row.dataset.i = n;
      var head = document.createElement("span");
      head.textContent = N[n][2];
      var ctx = document.createElement("span");
      ctx.className = "ctx";
      ctx.textContent = "…" + t.slice(Math.max(0, at - 40), at + q.length + 60).replace(/\s+/g, " ") + "…";
      row.appendChild(head);
      row.appendChild(ctx);
      frag.appendChild(row);
    }
    results.appendChild(frag);
    countBox.textContent = found === 1 ? "1 match" : found + " matches" + (found > 500 ? " (first 500 shown)" : "");
  }
  function applyChecks() {
    var boxes = document.querySelectorAll("#side input[type=checkbox]");
    for (var k = 0; k < boxes.length; k++) { document.body.classList.toggle("hide-" + boxes[k].value, !boxes[k].checked); }
  }
  treeBox.addEventListener("scroll", drawRows);
  window.addEventListener("resize", drawRows);
  inner.addEventListener("click", function (ev) {
    var row = ev.target.closest(".row");
    if (row) { go(+row.dataset.i); }
  });
  results.addEventListener("click", function (ev) {
    var row = ev.target.closest(".result-row");
    if (row) {
      go(+row.dataset.i);
      var el = main.querySelector(".entry.target");
      if (el) { el.classList.add("hit"); }
    }
  });
  var timer = 0;
  search.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(runSearch, 150); });
  mode.addEventListener("change", refilter);
  document.getElementById("checks").addEventListener("change", applyChecks);
  window.addEventListener("hashchange", fromHash);
  main.addEventListener("scroll", function () {
    if (!more.hidden && more.getBoundingClientRect().top < main.clientHeight + 800) { renderUpTo(rendered + CHUNK); }
  });
  more.addEventListener("click", function () { renderUpTo(rendered + CHUNK); });
  window.addEventListener("beforeprint", function () {
    renderUpTo(path.length);
    var d = main.querySelectorAll("details");
    for (var k = 0; k < d.length; k++) { d[k].open = true; }
  });
  applyChecks();
  // Opened without a deep link: the current path from its start, the way a conversation is read.
  if (!fromHash()) { showPath(leaf, false); }
  document.body.classList.add("ready");
})();
