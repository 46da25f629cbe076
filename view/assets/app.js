// bench view: table sort/filter, run selection, live progress, tree interaction.
(function () {
  "use strict";
  // Sortable tables: click a header with class "sort".
  document.querySelectorAll("table.sortable").forEach(function (table) {
    table.querySelectorAll("th.sort").forEach(function (th, _) {
      th.addEventListener("click", function () {
        var col = Array.prototype.indexOf.call(th.parentNode.children, th);
        var asc = th.dataset.dir !== "asc";
        th.dataset.dir = asc ? "asc" : "desc";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].dataset.v || a.cells[col].textContent.trim();
          var y = b.cells[col].dataset.v || b.cells[col].textContent.trim();
          var nx = parseFloat(x), ny = parseFloat(y);
          var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  // Runs filter.
  var filter = document.getElementById("runfilter");
  if (filter) {
    filter.addEventListener("input", function () {
      var q = filter.value.toLowerCase();
      document.querySelectorAll("#runs tbody tr").forEach(function (tr) {
        tr.style.display = tr.textContent.toLowerCase().indexOf(q) >= 0 ? "" : "none";
      });
    });
  }
  // Select runs to compare.
  var cmp = document.getElementById("compare");
  if (cmp) {
    var boxes = document.querySelectorAll("input.pick");
    var update = function () {
      var ids = [];
      boxes.forEach(function (b) { if (b.checked) ids.push(b.value); });
      ids.sort(function (a, b) { return a - b; });
      cmp.disabled = ids.length < 2;
      cmp.dataset.ids = ids.join(",");
      cmp.textContent = ids.length < 2 ? "Compare (select 2+)" : "Compare runs " + ids.join(", ");
    };
    boxes.forEach(function (b) { b.addEventListener("change", update); });
    cmp.addEventListener("click", function () { location.href = "/compare?runs=" + cmp.dataset.ids; });
    update();
  }
  // Live progress of running runs.
  var live = document.querySelectorAll("tr[data-running]");
  if (live.length) {
    var poll = function () {
      live.forEach(function (tr) {
        fetch("/runs/" + tr.dataset.id + "/progress").then(function (r) { return r.json(); }).then(function (p) {
          tr.querySelector(".status").textContent = p.status + (p.status === "running" ? " (" + p.done + " items)" : "");
          tr.querySelector(".n").textContent = p.done;
          tr.querySelector(".acc").textContent = p.done ? (100 * p.score / p.done).toFixed(1) + "%" : "";
          tr.querySelector(".tok").textContent = p.tokens;
          tr.querySelector(".calls").textContent = p.calls;
        }).catch(function () {});
      });
    };
    setInterval(poll, 2000);
  }
  // Tree: toggle children, click a node for its details.
  document.querySelectorAll(".node").forEach(function (el) {
    el.addEventListener("click", function (ev) {
      var li = el.parentNode;
      if (ev.target.classList.contains("tog")) {
        li.classList.toggle("collapsed");
        ev.target.textContent = li.classList.contains("collapsed") ? "▸" : "▾";
        return;
      }
      document.querySelectorAll(".node.active").forEach(function (n) { n.classList.remove("active"); });
      el.classList.add("active");
      var panel = document.getElementById("nodepanel");
      var tpl = document.getElementById("nd-" + el.dataset.id);
      if (panel && tpl) panel.innerHTML = tpl.innerHTML;
    });
  });
  var expandAll = document.getElementById("expandall"), collapseAll = document.getElementById("collapseall");
  var setAll = function (collapsed) {
    document.querySelectorAll("ul.tree li.has").forEach(function (li) {
      li.classList.toggle("collapsed", collapsed);
      var t = li.querySelector(":scope > .node .tog"); if (t) t.textContent = collapsed ? "▸" : "▾";
    });
  };
  if (expandAll) expandAll.addEventListener("click", function () { setAll(false); });
  if (collapseAll) collapseAll.addEventListener("click", function () { setAll(true); });
  // Opening a call from a node: expand it.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest("a.calllink");
    if (!a) return;
    var d = document.getElementById(a.getAttribute("href").slice(1));
    if (d) d.open = true;
  });
})();
