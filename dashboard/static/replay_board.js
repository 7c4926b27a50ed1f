// The Replay page's board, stepped in the browser (dashboard/views/replay_stepper.py
// mounts it; dashboard/views/replay_frames.py makes its data).
//
// One module, three views of one game, mounted as st.components.v2 components in the
// page's own DOM (no shadow root): "board" (the step buttons, a slider, the board),
// "moves" (every move with its loss; a click goes there) and "ruler" (the mark under
// the graph). They share the move shown through window.gobuddyReplay[game]: a key
// (Left/Right/Home/End), a button, the slider or the list changes it and every view
// redraws at once, with no run of the page. The server is told the move a moment
// after the last step (REPORT_MS, a trigger "move"), or at once when the pointer goes
// down elsewhere on the page, the click held until that run ended (a button beside
// the board must act on the position shown; sent in the same moment, one of the two
// was lost); on the graph, whose click is its own run, the report waits for it. The
// server moves the board itself only by a new "jump" (a mistake or the graph
// clicked, a game opened).
//
// What a position shows is drawn here as dashboard/board_svg.py draws it (same classes
// and data attributes), from the frames; the server's own SVG (data.svg) is shown
// instead at the position it was drawn for (data.at) until the board steps away: it
// has what the frames do not (a variation tried, the line chosen).

const REPORT_MS = 200;
const COLUMNS = 'ABCDEFGHJKLMNOPQRST';
const RANK_FILLS = ['#1565c0', '#42a5f5', '#64b5f6', '#90caf9', '#bbdefb'];
const OURS = '.gb-replay, .gb-replay-moves';  // what steps the board: the board view, the move list

function f1(x) { return x.toFixed(1); }

function geometry(fr) {
  const cell = fr.px / (fr.size - 1 + 2 * fr.marginCells);
  const margin = cell * fr.marginCells;
  return { size: fr.size, cell, xy: (r, c) => [margin + c * cell, margin + r * cell] };
}

function point(vertex, size) {
  if (!vertex || vertex === 'pass') return null;
  const col = COLUMNS.indexOf(vertex[0].toUpperCase());
  const num = parseInt(vertex.slice(1), 10);
  if (col < 0 || col >= size || !(num >= 1 && num <= size)) return null;
  return [size - num, col];
}

function ownershipLayer(g, stones, owner) {
  const out = [];
  owner.forEach((pct, p) => {
    const v = Math.max(-1, Math.min(1, pct / 100));
    const s = stones[p] === 'x' ? 1 : stones[p] === 'o' ? -1 : 0;
    if (Math.abs(v) < 0.15 || (s && s * v > 0)) return;
    const [x, y] = g.xy(Math.floor(p / g.size), p % g.size);
    const side = g.cell * (0.2 + 0.3 * Math.abs(v));
    out.push(`<rect class="owner ${v > 0 ? 'black' : 'white'}" x="${f1(x - side / 2)}" y="${f1(y - side / 2)}" `
      + `width="${f1(side)}" height="${f1(side)}" fill="${v > 0 ? '#000' : '#fff'}" `
      + `fill-opacity="${(0.25 + 0.4 * Math.abs(v)).toFixed(2)}"/>`);
  });
  return out;
}

function stoneLayer(g, stones) {
  const out = [];
  for (let p = 0; p < stones.length; p++) {
    if (stones[p] === '.') continue;
    const r = Math.floor(p / g.size), c = p % g.size;
    const [x, y] = g.xy(r, c);
    const colour = stones[p] === 'x' ? 'black' : 'white';
    const stroke = colour === 'white' ? ' stroke="#555" stroke-width="0.8"' : '';
    out.push(`<circle class="stone ${colour}" data-vertex="${COLUMNS[c]}${g.size - r}" cx="${f1(x)}" cy="${f1(y)}" `
      + `r="${f1(g.cell * 0.47)}" fill="url(#gb-${colour})"${stroke}/>`);
  }
  return out;
}

function lastMoveLayer(g, stones, vertex) {
  const rc = point(vertex, g.size);
  if (!rc) return [];
  const [x, y] = g.xy(...rc);
  const colour = stones[rc[0] * g.size + rc[1]] === 'x' ? '#fff' : '#000';
  return [`<circle class="last-move" data-vertex="${vertex.toUpperCase()}" cx="${f1(x)}" cy="${f1(y)}" `
    + `r="${f1(g.cell * 0.2)}" fill="none" stroke="${colour}" stroke-width="${f1(Math.max(1.5, g.cell / 18))}"/>`];
}

function marksAt(fr, n, moves) {
  // as move_list.board_marks: the class colour of each marked stone, a point played again keeps the later move's
  const marks = new Map();
  for (let m = 1; m <= n; m++) {
    const vertex = moves[m];
    if (!vertex) continue;
    if (fr.marks[m - 1]) marks.set(vertex, fr.marks[m - 1]); else marks.delete(vertex);
  }
  return marks;
}

function markLayer(g, stones, marks) {
  const out = [];
  for (const [vertex, colour] of marks) {
    const rc = point(vertex, g.size);
    if (!rc || stones[rc[0] * g.size + rc[1]] === '.') continue;
    const [x, y] = g.xy(...rc);
    out.push(`<circle class="mistake-mark" data-vertex="${vertex.toUpperCase()}" cx="${f1(x)}" cy="${f1(y)}" `
      + `r="${f1(g.cell * 0.16)}" fill="${colour}" stroke="#fff" stroke-width="0.8"/>`);
  }
  return out;
}

function recLayer(g, stones, recs) {
  const out = [];
  for (const [vertex, rank, pct] of [...recs].sort((a, b) => b[1] - a[1])) {
    const rc = point(vertex, g.size);
    if (!rc || stones[rc[0] * g.size + rc[1]] !== '.') continue;
    const [x, y] = g.xy(...rc);
    const fill = RANK_FILLS[Math.min(Math.max(rank, 1), RANK_FILLS.length) - 1];
    const text = rank <= 2 ? '#fff' : '#0d2a4a';
    out.push(`<g class="rec" data-rank="${rank}" data-vertex="${vertex.toUpperCase()}">`
      + `<circle cx="${f1(x)}" cy="${f1(y)}" r="${f1(g.cell * 0.44)}" fill="${fill}" fill-opacity="0.92" `
      + `stroke="#0d2a4a" stroke-width="${rank === 1 ? 1.5 : 0.6}"/>`
      + `<text x="${f1(x)}" y="${f1(y - g.cell * 0.04)}" font-family="sans-serif" font-weight="bold" `
      + `font-size="${f1(g.cell * 0.30)}" fill="${text}" text-anchor="middle">${rank}</text>`
      + `<text x="${f1(x)}" y="${f1(y + g.cell * 0.26)}" font-family="sans-serif" `
      + `font-size="${f1(g.cell * 0.24)}" fill="${text}" text-anchor="middle">${pct}%</text></g>`);
  }
  return out;
}

function lineLayer(g, stones, vertices, first, rank) {
  // as game_board.line_of: the side the analysis is for plays first, then they alternate
  const other = first === 'B' ? 'W' : 'B';
  const moves = vertices.map((vertex, i) => [i % 2 === 0 ? first : other, vertex]);
  const taken = new Set();
  for (let p = 0; p < stones.length; p++) if (stones[p] !== '.') taken.add(p);
  const out = [`<g class="pv-hover" data-rank="${rank}">`];
  const radius = g.cell * 0.45, font = g.cell * 0.38;
  moves.forEach(([colour, vertex], i) => {
    const rc = point(vertex, g.size);
    if (!rc || taken.has(rc[0] * g.size + rc[1])) return;
    taken.add(rc[0] * g.size + rc[1]);
    const [x, y] = g.xy(...rc);
    const [fill, text] = colour.toUpperCase().startsWith('B') ? ['#111', '#fff'] : ['#f4f4f4', '#111'];
    out.push(`<g class="pv-stone" data-vertex="${vertex.toUpperCase()}" data-number="${i + 1}">`
      + `<circle cx="${f1(x)}" cy="${f1(y)}" r="${f1(radius)}" fill="${fill}" fill-opacity="0.88" `
      + `stroke="#555" stroke-width="0.8"/>`
      + `<text x="${f1(x)}" y="${f1(y + font * 0.36)}" font-family="sans-serif" font-weight="bold" `
      + `font-size="${f1(font)}" fill="${text}" text-anchor="middle">${i + 1}</text></g>`);
  });
  out.push('</g>');
  return out;
}

function ringLayer(g, vertices) {
  return vertices.map((vertex) => {
    const rc = point(vertex, g.size);
    if (!rc) return '';
    const [x, y] = g.xy(...rc);
    return `<circle class="problem" data-vertex="${vertex.toUpperCase()}" cx="${f1(x)}" cy="${f1(y)}" `
      + `r="${f1(g.cell * 0.5)}" fill="none" stroke="#d32f2f" stroke-width="${f1(Math.max(2, g.cell / 10))}" `
      + `stroke-dasharray="${f1(g.cell / 6)} ${f1(g.cell / 12)}"/>`;
  });
}

function reasonLayer(g, vertices) {
  const out = [];
  vertices.forEach((vertex, i) => {
    const rc = point(vertex, g.size);
    if (!rc) return;
    const [x, y] = g.xy(...rc);
    const half = g.cell * 0.46;
    out.push(`<rect class="reason-mark" data-vertex="${vertex.toUpperCase()}" x="${f1(x - half)}" y="${f1(y - half)}" `
      + `width="${f1(2 * half)}" height="${f1(2 * half)}" rx="${f1(g.cell * 0.08)}" fill="none" stroke="#00838f" `
      + `stroke-width="${f1(Math.max(2, g.cell / (i === 0 ? 8 : 14)))}"/>`);
  });
  return out.length ? ['<g class="reason-where">', ...out, '</g>'] : [];
}

// The board after n moves of the main line, as board_svg draws it.
function boardSvg(fr, n) {
  const g = geometry(fr);
  const stones = fr.stones[n];
  const count = [...stones].filter((c) => c !== '.').length;
  const recs = fr.recs[n] || [];
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" class="go-board" data-size="${fr.size}" data-stones="${count}" `
    + `data-move-count="${n}" width="${fr.px}" height="${fr.px}" viewBox="0 0 ${fr.px} ${fr.px}" `
    + `style="max-width:100%;height:auto" role="img" aria-label="Go board, ${fr.size} by ${fr.size}, ${count} stones">`,
  fr.base];
  if (fr.owner[n]) parts.push(...ownershipLayer(g, stones, fr.owner[n]));
  parts.push(...stoneLayer(g, stones));
  if (fr.lastMove[n]) parts.push(...lastMoveLayer(g, stones, fr.lastMove[n]));
  parts.push(...markLayer(g, stones, marksAt(fr, n, fr.lastMove)));
  parts.push(...recLayer(g, stones, recs));
  for (const [vertex, rank] of recs) {
    const line = fr.lines[n][vertex];
    if (line && line.length) parts.push(...lineLayer(g, stones, line, fr.toPlay[n] || 'B', rank));
  }
  parts.push(...ringLayer(g, fr.problems[n]));
  parts.push(...reasonLayer(g, fr.reasons[n]));
  parts.push('</svg>');
  return parts.join('');
}

// --- the move shown, shared by the views of one game ---

function shared(data) {
  const all = (window.gobuddyReplay = window.gobuddyReplay || {});
  let s = all[data.game];
  if (!s) {
    s = all[data.game] = { move: data.jump.n, jump: data.jump.id, last: data.last, views: new Map(), timer: null };
  } else if (s.jump !== data.jump.id) {
    s.jump = data.jump.id;
    go(s, data.jump.n, false);
  }
  s.last = data.last;
  return s;
}

function go(s, n, byUser) {
  n = Math.max(0, Math.min(s.last, n));
  if (n === s.move) return;
  s.move = n;
  for (const redraw of s.views.values()) redraw();
  if (byUser && s.report) {
    clearTimeout(s.timer);
    s.timer = setTimeout(() => flush(s), REPORT_MS);
  } else if (!byUser) {
    clearTimeout(s.timer);
    s.timer = null;
  }
}

function flush(s) {
  if (s.timer === null) return;
  clearTimeout(s.timer);
  s.timer = null;
  s.report(s.move);
}

function installKeys() {
  if (window.gobuddyReplayKeys) return;
  window.gobuddyReplayKeys = true;
  const IGNORED = 'input,textarea,select,[contenteditable],[role=slider],[role=tab],[role=radio],[role=listbox]';
  document.addEventListener('keydown', (event) => {
    const s = window.gobuddyReplayActive;
    if (!s || !s.root || !s.root.isConnected) return;  // not on the Replay page
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    if (event.target instanceof Element && event.target.closest(IGNORED) && !event.target.closest(OURS)) return;
    const to = { ArrowLeft: s.move - 1, ArrowRight: s.move + 1, Home: 0, End: s.last }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    go(s, to, true);
  });
  // A button elsewhere acts on the position shown: when the pointer goes down there
  // with a report still due, the server is told at once and the click held until
  // that run ended (a click during it would be folded into it and lost), then given.
  // The graph jumps by itself, on its own events (not a click that can wait): the
  // report waits for the graph's run instead, and is sent only if no jump came.
  let held = null;
  document.addEventListener('pointerdown', (event) => {
    const s = window.gobuddyReplayActive;
    const inside = event.target instanceof Element && event.target.closest(OURS);
    if (s && s.timer !== null && !inside && s.root && s.root.isConnected) {
      if (event.target.closest('.js-plotly-plot')) {
        clearTimeout(s.timer);
        s.timer = null;
        const jump = s.jump;
        // Reported only when the click started no run (it missed the bars): after the
        // graph's run the jump it made may reach this component a moment later, and the
        // step reported then would send the server back (board at 12, server at 3).
        afterRun((ran) => { if (!ran && s.jump === jump && s.report) s.report(s.move); }, 5000);
        return;
      }
      flush(s);
      held = { target: event.target, released: false };
      afterRun(() => {
        const h = held;
        held = null;
        if (h && h.released && h.target.isConnected) h.target.click();
      });
    }
  }, true);
  document.addEventListener('click', (event) => {
    if (held && event.isTrusted) {
      event.stopPropagation();
      event.preventDefault();
      held.target = event.target;
      held.released = true;
    }
  }, true);
}

// Call `then(ran)` once the page's run now starting has ended (ran: true), or after
// `limitMs` (ran: whether one had started).
function afterRun(then, limitMs = 5000) {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) { then(); return; }
  let started = false;
  let done = false;
  const finish = () => { if (!done) { done = true; watch.disconnect(); then(started); } };
  const watch = new MutationObserver(() => {
    const state = app.dataset.testScriptState;
    if (state === 'running') started = true;
    else if (started) finish();
  });
  watch.observe(app, { attributes: true, attributeFilter: ['data-test-script-state'] });
  setTimeout(finish, limitMs);
}

function child(parent, cls, tag = 'div') {
  let el = parent.querySelector(`:scope > .${cls}`);
  if (!el) {
    el = document.createElement(tag);
    el.className = cls;
    parent.appendChild(el);
  }
  return el;
}

function boardView(component, s) {
  const { data, parentElement, setTriggerValue } = component;
  const root = child(parentElement, 'gb-replay');
  if (!root.dataset.built) {
    root.dataset.built = '1';
    root.innerHTML = '<div class="gb-replay-steps">'
      + '<button type="button" data-to="first" aria-label="Start" title="Home">&#xAB; Start</button>'
      + '<button type="button" data-to="back" aria-label="Back" title="Left arrow">&#x2039; Back</button>'
      + '<button type="button" data-to="next" aria-label="Next" title="Right arrow">Next &#x203A;</button>'
      + '<button type="button" data-to="end" aria-label="End" title="End">End &#xBB;</button></div>'
      + '<input class="gb-replay-slider" type="range" min="0" step="1" aria-label="Move">'
      + '<div class="gb-replay-where"></div><div class="gobuddy-board gb-replay-board"></div>';
  }
  const buttons = root.querySelector('.gb-replay-steps');
  buttons.onclick = (event) => {
    const b = event.target instanceof Element ? event.target.closest('button') : null;
    if (!b) return;
    const to = { first: 0, back: s.move - 1, next: s.move + 1, end: s.last }[b.dataset.to];
    go(s, to, true);
  };
  const slider = root.querySelector('.gb-replay-slider');
  slider.max = String(data.last);
  slider.hidden = data.last === 0;
  slider.oninput = () => go(s, parseInt(slider.value, 10), true);
  const where = root.querySelector('.gb-replay-where');
  const holder = root.querySelector('.gb-replay-board');
  s.root = root;
  s.report = (n) => setTriggerValue('move', n);
  window.gobuddyReplayActive = s;
  let serverSvg = data.svg;  // shown at data.at until the board steps away from it
  const redraw = () => {
    if (s.move !== data.at) serverSvg = null;
    const svg = s.move === data.at && serverSvg ? serverSvg : boardSvg(data.frames, s.move);
    holder.innerHTML = svg;
    slider.value = String(s.move);
    where.textContent = `Move ${s.move} of ${s.last}` + (s.move === data.at && serverSvg && data.tried
      ? ` + ${data.tried} tried` : '');
    for (const b of buttons.querySelectorAll('button')) {
      b.disabled = b.dataset.to === 'first' || b.dataset.to === 'back' ? s.move === 0 : s.move === s.last;
    }
  };
  holder.onclick = data.trying ? (event) => {
    const svg = holder.querySelector('svg');
    if (!svg) return;
    const box = svg.getBoundingClientRect();
    const fr = data.frames;
    const span = fr.size - 1 + 2 * fr.marginCells;
    const col = Math.round((event.clientX - box.left) / box.width * span - fr.marginCells);
    const row = Math.round((event.clientY - box.top) / box.height * span - fr.marginCells);
    if (col < 0 || row < 0 || col >= fr.size || row >= fr.size) return;
    clearTimeout(s.timer);
    s.timer = null;
    setTriggerValue('point', { move: s.move, vertex: COLUMNS[col] + String(fr.size - row) });
  } : null;
  holder.classList.toggle('trying', !!data.trying);
  s.views.set('board', redraw);
  redraw();
}

function movesView(component, s) {
  const { data, parentElement } = component;
  const box = child(parentElement, 'gb-replay-moves');
  box.setAttribute('role', 'listbox');
  box.style.height = `${data.height}px`;
  if (box.dataset.entries !== data.id) {
    box.dataset.entries = data.id;
    box.innerHTML = '';
    for (const [n, text, colour, tail] of data.entries) {
      const item = document.createElement('div');
      item.className = 'gb-move';
      item.dataset.move = String(n);
      item.setAttribute('role', 'option');
      const label = document.createElement('span');
      label.textContent = text;
      item.appendChild(label);
      if (tail) {
        const loss = document.createElement('span');
        loss.className = 'gb-loss';
        loss.style.color = colour;
        loss.textContent = tail;
        item.appendChild(loss);
      }
      box.appendChild(item);
    }
  }
  box.onclick = (event) => {
    const item = event.target instanceof Element ? event.target.closest('.gb-move') : null;
    if (item) go(s, parseInt(item.dataset.move, 10), true);
  };
  const redraw = () => {
    const old = box.querySelector('.gb-move.selected');
    if (old) { old.classList.remove('selected'); old.setAttribute('aria-selected', 'false'); }
    const item = box.querySelector(`.gb-move[data-move="${s.move}"]`);
    if (!item) return;
    item.classList.add('selected');
    item.setAttribute('aria-selected', 'true');
    const top = item.offsetTop;  // the box is positioned: scroll the list only, never the page
    if (top < box.scrollTop || top + item.offsetHeight > box.scrollTop + box.clientHeight) {
      box.scrollTop = top - box.clientHeight / 2;
    }
  };
  s.views.set('moves', redraw);
  redraw();
}

function rulerView(component, s) {
  const { data, parentElement } = component;
  const ruler = child(parentElement, 'position-ruler');
  ruler.style.padding = `0 ${data.margin}px`;
  if (!ruler.firstChild) {
    ruler.innerHTML = '<div class="gb-ruler-track"><div class="gb-ruler-mark"></div></div>';
  }
  const mark = ruler.querySelector('.gb-ruler-mark');
  const redraw = () => {
    ruler.dataset.move = String(s.move);
    mark.style.left = `${(100 * (s.move + 0.5) / (s.last + 1)).toFixed(3)}%`;
  };
  s.views.set('ruler', redraw);
  redraw();
}

export default function (component) {
  installKeys();
  const { data } = component;
  const s = shared(data);
  if (data.view === 'board') boardView(component, s);
  else if (data.view === 'moves') movesView(component, s);
  else if (data.view === 'ruler') rulerView(component, s);
}
