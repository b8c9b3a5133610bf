// SPDX-License-Identifier: MIT
// page.js: draws the report page of `hangtrace report --html` from the JSON
// in the page's ht-data block. Every string from a trace reaches the page as
// text (textContent, SVG text nodes), never as markup. Written into
// html_assets.c by scripts/embed-page.py; ends by adding #ht-ready, which
// the tests look for (a script error leaves it out).
(function () {
  'use strict';
  var t0 = Date.now();
  var D = JSON.parse(document.getElementById('ht-data').textContent);
  var SVG = 'http://www.w3.org/2000/svg';
  var PHASE_COLOURS = ['#8fa8c8', '#5dade2', '#48c9b0', '#58d68d', '#f5b041', '#eb984e',
    '#af7ac5', '#2e86c1'];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    if (attrs) for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function title(node, text) { add(node, sv('title', null, text)); return node; }
  function $(id) { return document.getElementById(id); }

  // "0-6,8" <-> sorted [lo, hi] intervals
  function parseRanges(s) {
    var out = [];
    if (!s) return out;
    s.split(',').forEach(function (p) {
      var m = /^(-?\d+)(?:-(\d+))?$/.exec(p.trim());
      if (m) out.push([+m[1], m[2] === undefined ? +m[1] : +m[2]]);
    });
    return out;
  }
  function countRanges(iv) {
    var n = 0;
    iv.forEach(function (r) { n += r[1] - r[0] + 1; });
    return n;
  }
  function fmtRanges(iv) {
    return iv.map(function (r) { return r[0] === r[1] ? String(r[0]) : r[0] + '-' + r[1]; }).join(',');
  }
  function unionRanges(a, b) {
    var all = a.concat(b).map(function (r) { return [r[0], r[1]]; });
    all.sort(function (x, y) { return x[0] - y[0]; });
    var out = [];
    all.forEach(function (r) {
      var last = out[out.length - 1];
      if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
      else out.push(r);
    });
    return out;
  }
  function ranksText(s) {
    var n = countRanges(parseRanges(s));
    return (n === 1 ? 'rank ' : 'ranks ') + s;
  }

  // ---- header and summary
  document.title = 'hangtrace report: ' + (D.job.line || '');
  $('ht-job').textContent = D.job.line || '';
  var facts = $('ht-facts');
  function fact(k, v) {
    if (v === null || v === undefined || v === '') return;
    var tr = add(facts, el('tr'));
    add(tr, el('td', null, k));
    add(tr, el('td', null, v));
  }
  fact('framework', D.job.framework || 'unknown');
  fact('ranks numbered by', D.job.kind);
  fact('job', D.job.job_id);
  fact('world size', D.job.world_size > 0 ? D.job.world_size + ' (from ' + D.job.ws_source + ')' : 'unknown');
  fact('ranks seen', D.job.seen + (D.job.missing ? '; missing: ' + D.job.missing : ''));
  fact('hosts', D.job.nhosts + (D.job.hosts.length ? ': ' + D.job.hosts.join(', ') +
    (D.job.nhosts > D.job.hosts.length ? ', ...' : '') : ''));
  fact('trace files', D.job.files + ' (' + D.job.procs + ' processes' +
    (D.warnings.length ? ', ' + (D.warnings.length + D.warnings_more) +
    (D.warnings.length + D.warnings_more === 1 ? ' warning' : ' warnings') + ' below' : '') + ')');
  fact('traced for', D.span.toFixed(1) + ' s');
  var pt = $('ht-phases');
  var hr = add(pt, el('tr'));
  ['phase', 'ranks', 'stalled', 'ended', 'which'].forEach(function (h) { add(hr, el('th', null, h)); });
  D.table.forEach(function (r) {
    var tr = add(pt, el('tr'));
    add(tr, el('td', null, r.phase));
    add(tr, el('td', { 'class': 'n' }, r.n));
    add(tr, el('td', { 'class': 'n' }, r.stalled));
    add(tr, el('td', { 'class': 'n' }, r.ended));
    add(tr, el('td', { 'class': 'mono' }, r.which));
  });

  // ---- verdicts
  var vs = $('ht-verdicts');
  if (!D.verdicts.length)
    add(vs, el('p', { 'class': 'none' }, 'No verdict: no rank is missing, stalled or misconfigured as far as the traces show.'));
  D.verdicts.forEach(function (v, i) {
    var box = add(vs, el('div', { 'class': 'verdict ' + v.severity, id: 'verdict-' + (i + 1) }));
    var head = add(box, el('div', { 'class': 'head' }));
    add(head, el('span', { 'class': 'sev' }, v.severity.toUpperCase()));
    add(head, el('span', { 'class': 'code' }, v.code));
    if (v.ranks) add(head, el('span', { 'class': 'ranks' }, ranksText(v.ranks)));
    add(box, el('div', null, v.summary));
    if (v.advice) {
      var a = add(box, el('div', { 'class': 'advice' }));
      add(a, el('b', null, 'advice: '));
      add(a, document.createTextNode(v.advice));
    }
    if (v.evidence.length) {
      var d = add(box, el('details'));
      if (i === 0) d.open = true;
      add(d, el('summary', null, 'evidence (' + v.evidence.length + ' trace line' +
        (v.evidence.length === 1 ? '' : 's') + ')'));
      add(d, el('pre', { 'class': 'evidence' }, v.evidence.join('\n')));
    }
  });

  // ---- timeline
  var LABEL = 250, ROW = 20, W = Math.max(600, Math.min(1400, window.innerWidth - 60) - LABEL - 90);
  var span = D.span > 0 ? D.span : 1;
  function X(t) { return LABEL + Math.max(0, Math.min(1, t / span)) * W; }
  var items = [];	// host headings and rows, in drawing order
  var lastHost = null;
  D.rows.forEach(function (r, i) {
    if (D.by_host && r.host !== lastHost) { items.push({ host: r.host }); lastHost = r.host; }
    items.push({ row: r, index: i });
  });
  var H = 30 + items.length * ROW + 10;
  var svg = sv('svg', { width: LABEL + W + 90, height: H, role: 'img' });
  add(svg, title(sv('desc'), 'timeline of every rank'));
  var defs = add(svg, sv('defs'));
  var pat = add(defs, sv('pattern', { id: 'hatch', width: 6, height: 6, patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)' }));
  add(pat, sv('rect', { width: 6, height: 6, fill: '#e74c3c' }));
  add(pat, sv('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#922b21', 'stroke-width': 3 }));
  var mk = add(defs, sv('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5,
    markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }));
  add(mk, sv('path', { d: 'M0,0L10,5L0,10z', fill: '#1d2330' }));
  // time axis
  var step = Math.pow(10, Math.floor(Math.log10(span / 5)));
  if (span / step > 12) step *= 5; else if (span / step > 6) step *= 2;
  for (var t = 0; t <= span + 1e-9; t += step) {
    add(svg, sv('line', { x1: X(t), y1: 22, x2: X(t), y2: H - 8, stroke: '#eceff4' }));
    add(svg, sv('text', { x: X(t), y: 14, 'font-size': 11, 'text-anchor': 'middle', fill: '#5b6475' },
      (step < 1 ? t.toFixed(1) : Math.round(t)) + ' s'));
  }
  var rowY = {};
  var y = 30;
  items.forEach(function (it) {
    if (it.host !== undefined) {
      add(svg, sv('text', { x: 4, y: y + 14, 'font-size': 12, 'font-weight': 600, fill: '#1d2330' },
        it.host));
      y += ROW;
      return;
    }
    var r = it.row, g = add(svg, sv('g', { 'class': 'row', 'data-ranks': r.ranks }));
    rowY[it.index] = y;
    var label = r.label;
    add(g, title(sv('text', { x: D.by_host ? 16 : 4, y: y + 14, 'font-size': 12,
      fill: r.state === 'missing' ? '#922b21' : '#1d2330' }, label.length > 38 ? label.slice(0, 37) + '\u2026' : label),
      label + (r.hosts ? '\n' + r.hosts : '') + '\n' + r.state + (r.doing ? '\n' + r.doing : '')));
    if (r.state === 'missing') {
      add(g, title(sv('rect', { x: LABEL, y: y + 3, width: W, height: ROW - 6, fill: 'none',
        stroke: '#922b21', 'stroke-dasharray': '4 3' }), 'never wrote a trace'));
      add(g, sv('text', { x: LABEL + 6, y: y + 14, 'font-size': 11, fill: '#922b21' }, 'no trace: never started, or never reached the library'));
    }
    r.ph.forEach(function (p) {
      var x0 = X(p[1]), x1 = Math.max(X(p[2]), x0 + 1);
      var stalled = p[3] & 1, err = p[3] & 2;
      add(g, title(sv('rect', { x: x0, y: y + 3, width: x1 - x0, height: ROW - 8,
        fill: stalled ? 'url(#hatch)' : PHASE_COLOURS[p[0] % PHASE_COLOURS.length],
        stroke: err ? '#922b21' : 'none', 'class': 'phase' }),
        D.phases[p[0]] + (stalled ? ' (stalled)' : '') + (err ? ' (error)' : '') + ': ' +
        p[1].toFixed(3) + ' s to ' + p[2].toFixed(3) + ' s'));
    });
    r.calls.forEach(function (c) {
      var x0 = X(c[1]), x1 = Math.max(X(c[2]), x0 + 2);
      add(g, title(sv('rect', { x: x0, y: y + ROW - 6, width: x1 - x0, height: 4,
        fill: c[3] ? '#922b21' : '#34495e' }), c[0] + (c[3] ? ' (still in it)' : '') + ': ' +
        c[1].toFixed(3) + ' s to ' + c[2].toFixed(3) + ' s'));
    });
    r.dumps.forEach(function (d) {
      var x = X(d[0]);
      add(g, title(sv('path', { d: 'M' + (x - 4) + ',' + (y + 1) + 'L' + (x + 4) + ',' + (y + 1) + 'L' + x + ',' + (y + 8) + 'z',
        fill: '#1d2330', 'class': 'dump' }), 'dump ' + d[1] + ' (' + d[2] + ') at ' + d[0].toFixed(3) + ' s'));
    });
    if (r.exit) {
      var ex = X(r.exit[0]);
      add(g, title(sv('line', { x1: ex, y1: y + 1, x2: ex, y2: y + ROW - 1, stroke: '#1d2330',
        'stroke-width': 2, 'class': 'exit' }), r.exit[1] + ' at ' + r.exit[0].toFixed(3) + ' s'));
      add(g, sv('text', { x: ex + 3, y: y + 14, 'font-size': 10, fill: '#1d2330' }, r.exit[1]));
    }
    y += ROW;
  });
  // who waits for whom
  D.rows.forEach(function (r, i) {
    (r.targets || []).forEach(function (j) {
      if (rowY[i] === undefined || rowY[j] === undefined || i === j) return;
      var x = r.wait_at !== null ? X(r.wait_at) : X(span), y0 = rowY[i] + ROW / 2, y1 = rowY[j] + ROW / 2;
      var bend = Math.min(80, 20 + Math.abs(y1 - y0) / 4);
      add(svg, title(sv('path', { d: 'M' + x + ',' + y0 + 'C' + (x + bend) + ',' + y0 + ' ' + (x + bend) + ',' + y1 + ' ' + (x + 6) + ',' + y1,
        fill: 'none', stroke: '#1d2330', 'stroke-width': 1.5, 'marker-end': 'url(#arrow)', 'class': 'waits' }),
      r.label + ' waits for ' + ranksText(r.waits)));
    });
  });
  $('ht-timeline').appendChild(svg);
  if (D.rows_cut) add($('ht-timeline-note'), document.createTextNode(D.rows_cut + ' more rows not drawn. '));
  if (D.grouped) add($('ht-timeline-note'), document.createTextNode(
    'Ranks whose timelines look alike at this scale share a row (their rank range is its label). '));
  var lg = $('ht-legend');
  D.phases.forEach(function (p, i) {
    var s = add(lg, el('span'));
    var sw = add(s, el('i'));
    sw.style.background = PHASE_COLOURS[i % PHASE_COLOURS.length];
    add(s, document.createTextNode(p));
  });
  [['#e74c3c', 'stalled'], ['#34495e', 'blocking call'], ['#1d2330', '\u25bc dump, | exit, \u2192 waits for']].forEach(function (x) {
    var s = add(lg, el('span'));
    var sw = add(s, el('i'));
    sw.style.background = x[0];
    add(s, document.createTextNode(x[1]));
  });

  // ---- stacks as a tree: outermost frame first, branches with their ranks
  function node() { return { kids: [], byName: Object.create(null), ranks: [], count: 0, frame: null }; }
  var root = node();
  D.groups.forEach(function (g) {
    var iv = parseRanges(g.ranks), cur = root;
    root.ranks = unionRanges(root.ranks, iv);
    root.count += g.n;
    for (var i = g.frames.length - 1; i >= 0; i--) {
      var f = g.frames[i], nx = cur.byName[f] || null;
      if (!nx) { nx = node(); nx.frame = f; cur.byName[f] = nx; cur.kids.push(nx); }
      nx.ranks = unionRanges(nx.ranks, iv);
      nx.count += g.n;
      cur = nx;
    }
    cur.leafOf = (cur.leafOf || []).concat([g]);
  });
  function who(n) { return (n.count === 1 ? '1 process' : n.count + ' processes') + (n.ranks.length ? ', ' + ranksText(fmtRanges(n.ranks)) : ''); }
  function draw(parent, n, open) {
    // a chain of single children with the same ranks folds into one branch
    var chain = [n];
    while (chain[chain.length - 1].kids.length === 1 && !chain[chain.length - 1].leafOf &&
      chain[chain.length - 1].kids[0].count === n.count) chain.push(chain[chain.length - 1].kids[0]);
    var last = chain[chain.length - 1];
    var d = add(parent, el('details'));
    d.open = open;
    var s = add(d, el('summary'));
    add(s, el('span', { 'class': 'rk' }, who(n)));
    add(s, document.createTextNode(' ' + (chain.length > 1 ? chain.length + ' frames, to ' : '') + last.frame));
    chain.forEach(function (c, i) {
      add(d, el('div', { 'class': 'fr' + (i === chain.length - 1 && !last.kids.length ? ' top' : '') }, c.frame));
    });
    if (last.leafOf) last.leafOf.forEach(function (g) {
      add(d, el('div', { 'class': 'note' }, 'innermost frame of ' + ranksText(g.ranks) + ' (' + g.phase + (g.work ? ', ' + g.work : '') + ')'));
    });
    last.kids.forEach(function (k) { draw(d, k, last.kids.length <= 3); });
  }
  var tree = $('ht-stacks');
  if (!root.kids.length) add(tree, el('p', { 'class': 'none' }, 'No stalled rank was dumped: no stacks to merge.'));
  root.kids.forEach(function (k) { draw(tree, k, true); });

  // ---- warnings
  var ws = $('ht-warnings');
  if (D.warnings.length) {
    add(ws, el('h2', null, 'Warnings: lines and files that could not be read'));
    var ul = add(ws, el('ul', { 'class': 'warn' }));
    D.warnings.forEach(function (w) { add(ul, el('li', null, w)); });
    if (D.warnings_more) add(ws, el('p', { 'class': 'note' }, D.warnings_more + ' more (hangtrace report --json lists them)'));
  }

  // done: the marker the tests look for
  var first = document.querySelector('.verdict .code');
  var done = el('div', { id: 'ht-ready', hidden: '' });
  done.setAttribute('data-first-verdict', first ? first.textContent : '');
  done.setAttribute('data-first-verdict-top', first ? Math.round(first.getBoundingClientRect().top) : -1);
  done.setAttribute('data-ms', Date.now() - t0);
  done.setAttribute('data-rows', D.rows.length);
  document.body.appendChild(done);
})();
