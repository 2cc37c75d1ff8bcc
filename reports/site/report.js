// dodbench's HTML report: sortable tables (click a heading) and filters (one select per
// heading marked data-filter). No framework, no network: the report is a folder of files.
"use strict";

function cellValue(cell) {
  return cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent.trim();
}

function applyFilters(table) {
  const selects = table._filters;
  let shown = 0;
  for (const row of table.tBodies[0].rows) {
    const keep = selects.every(
      s => s.value === "" || cellValue(row.cells[+s.dataset.col]) === s.value);
    row.hidden = !keep;
    if (keep) shown++;
  }
  table._count.textContent = shown + " of " + table.tBodies[0].rows.length + " rows shown";
}

function sortBy(table, col, th) {
  const rows = Array.from(table.tBodies[0].rows);
  const values = rows.map(r => cellValue(r.cells[col]));
  const numeric = values.every(v => v === "" || !isNaN(Number(v)));
  const down = th.dataset.sorted === "up";
  rows.sort((a, b) => {
    const x = cellValue(a.cells[col]), y = cellValue(b.cells[col]);
    const c = numeric ? (Number(x) - Number(y)) : x.localeCompare(y);
    return down ? -c : c;
  });
  for (const h of th.parentNode.cells) delete h.dataset.sorted;
  th.dataset.sorted = down ? "down" : "up";
  for (const r of rows) table.tBodies[0].appendChild(r);
}

function setUp(table) {
  const bar = document.createElement("div");
  bar.className = "filters";
  table._filters = [];
  Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
    th.addEventListener("click", () => sortBy(table, col, th));
    if (th.dataset.filter === undefined) return;
    const values = new Set(Array.from(table.tBodies[0].rows, r => cellValue(r.cells[col])));
    const select = document.createElement("select");
    select.dataset.col = col;
    select.name = th.dataset.filter;
    select.add(new Option(th.textContent.trim() + ": all", ""));
    for (const v of Array.from(values).sort()) select.add(new Option(v, v));
    select.addEventListener("change", () => applyFilters(table));
    bar.appendChild(select);
    table._filters.push(select);
  });
  table._count = document.createElement("p");
  table._count.className = "count";
  table.parentNode.insertBefore(bar, table);
  table.parentNode.insertBefore(table._count, table);
  applyFilters(table);
}

document.querySelectorAll("table.sortable").forEach(setUp);
