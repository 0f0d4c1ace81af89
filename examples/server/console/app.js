// FileIO console: one page over the agentfiles HTTP JSON API (POST /tools/{name}).
// Plain browser JavaScript, no build step, no dependencies.
'use strict';

const TOKEN_KEY = 'agentfiles.token';
const PROJECT_KEY = 'agentfiles.project';
const RECENT_KEY = 'agentfiles.recentProjects';
const LIST_LIMIT = 256;

const $ = (id) => document.getElementById(id);

const state = {
  token: '',
  project: '',
  openPath: '',       // the file shown in the view, '' for none
  expanded: new Set() // directory paths expanded in the tree
};

// ---------- API ----------

// ToolError is a failed call: the coded error of the API, or a network failure.
class ToolError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

// call runs one tool and returns its result object, or throws a ToolError.
async function call(tool, args) {
  let resp;
  try {
    resp = await fetch('tools/' + encodeURIComponent(tool), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Authorization': 'Bearer ' + state.token
      },
      body: JSON.stringify(args)
    });
  } catch (e) {
    throw new ToolError('NETWORK', 'the server did not answer (' + e.message + '); is it still running?', 0);
  }
  let body = null;
  try {
    body = await resp.json();
  } catch (e) {
    throw new ToolError('BAD_RESPONSE', 'the server answered ' + resp.status + ' without a JSON body', resp.status);
  }
  if (!resp.ok || (body && body.error)) {
    const err = (body && body.error) || {};
    throw new ToolError(err.code || 'HTTP_' + resp.status, err.message || resp.statusText, resp.status);
  }
  return body;
}

// ---------- messages ----------

function showError(err) {
  const box = $('error');
  box.textContent = '';
  const code = document.createElement('strong');
  code.className = 'code';
  code.textContent = err.code || 'ERROR';
  box.append(code, ' ', err.message || String(err));
  if (err.status) {
    const st = document.createElement('span');
    st.className = 'muted';
    st.textContent = ' (HTTP ' + err.status + ')';
    box.append(st);
  }
  box.hidden = false;
}

function clearError() {
  $('error').hidden = true;
  $('error').textContent = '';
}

function status(text) {
  $('status').textContent = text;
}

// guarded runs an async action, reporting its error instead of throwing.
async function guarded(fn) {
  try {
    clearError();
    return await fn();
  } catch (err) {
    showError(err);
    return undefined;
  }
}

// ---------- tree ----------

function parentOf(path) {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '' : path.slice(0, i);
}

function formatBytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
  return (n / 1024 / 1024).toFixed(1) + ' MiB';
}

// treeItem builds one <li role="treeitem"> for a file_list entry.
function treeItem(entry, level) {
  const li = document.createElement('li');
  li.setAttribute('role', 'treeitem');
  li.setAttribute('aria-level', String(level));
  li.tabIndex = -1;
  li.dataset.path = entry.path;
  li.dataset.type = entry.type;
  const label = document.createElement('span');
  label.className = 'label';
  const icon = document.createElement('span');
  icon.className = 'icon';
  icon.setAttribute('aria-hidden', 'true');
  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = entry.name;
  label.append(icon, name);
  if (entry.type === 'DIRECTORY') {
    li.setAttribute('aria-expanded', 'false');
    li.classList.add('dir');
  } else {
    li.classList.add('file');
    const size = document.createElement('span');
    size.className = 'size muted';
    size.textContent = formatBytes(entry.size_bytes);
    label.append(size);
  }
  li.append(label);
  return li;
}

// loadChildren lists dir (depth 1) into the <ul> container, re-expanding remembered dirs.
async function loadChildren(container, dir, level) {
  const res = await call('file_list', { project: state.project, path: dir, depth: 1, limit: LIST_LIMIT });
  container.textContent = '';
  for (const entry of res.entries) {
    const li = treeItem(entry, level);
    container.append(li);
    if (entry.type === 'DIRECTORY' && state.expanded.has(entry.path)) {
      await expand(li);
    }
  }
  if (res.has_more) {
    const more = document.createElement('li');
    more.className = 'muted more';
    more.setAttribute('role', 'none');
    more.textContent = 'only the first ' + res.entries.length + ' entries are shown';
    container.append(more);
  }
  if (state.openPath) markOpen();
  return res.entries.length;
}

async function expand(li) {
  let group = li.querySelector(':scope > ul');
  if (!group) {
    group = document.createElement('ul');
    group.setAttribute('role', 'group');
    li.append(group);
  }
  li.setAttribute('aria-expanded', 'true');
  state.expanded.add(li.dataset.path);
  await loadChildren(group, li.dataset.path, Number(li.getAttribute('aria-level')) + 1);
}

function collapse(li) {
  li.setAttribute('aria-expanded', 'false');
  state.expanded.delete(li.dataset.path);
  const group = li.querySelector(':scope > ul');
  if (group) group.remove();
}

async function loadTree() {
  if (!state.project) return;
  const tree = $('tree');
  const active = document.activeElement;
  const hadFocus = tree.contains(active);
  const focusedPath = hadFocus ? active.dataset.path : undefined;
  const n = await loadChildren(tree, '', 1);
  $('tree-empty').hidden = n > 0;
  const items = visibleItems();
  const target = items.find((li) => li.dataset.path === focusedPath) || items[0];
  if (target) {
    setRoving(target);
    if (hadFocus) target.focus();
  }
}

function visibleItems() {
  return Array.from($('tree').querySelectorAll('li[role="treeitem"]'))
    .filter((li) => li.offsetParent !== null);
}

// setRoving makes li the one tree item reachable with Tab.
function setRoving(li) {
  for (const other of $('tree').querySelectorAll('li[role="treeitem"]')) other.tabIndex = -1;
  li.tabIndex = 0;
}

function focusItem(li) {
  if (!li) return;
  setRoving(li);
  li.focus();
}

async function activate(li) {
  setRoving(li);
  if (li.dataset.type === 'DIRECTORY') {
    await guarded(() => li.getAttribute('aria-expanded') === 'true' ? collapse(li) : expand(li));
  } else {
    await openFile(li.dataset.path);
  }
}

function markOpen() {
  for (const li of $('tree').querySelectorAll('li[role="treeitem"]')) {
    const open = li.dataset.path === state.openPath;
    li.classList.toggle('open', open);
    if (open) li.setAttribute('aria-selected', 'true'); else li.removeAttribute('aria-selected');
  }
}

function onTreeKey(ev) {
  const li = ev.target.closest('li[role="treeitem"]');
  if (!li) return;
  const items = visibleItems();
  const i = items.indexOf(li);
  switch (ev.key) {
    case 'Enter':
    case ' ':
      ev.preventDefault();
      activate(li);
      break;
    case 'ArrowDown':
      ev.preventDefault();
      focusItem(items[i + 1]);
      break;
    case 'ArrowUp':
      ev.preventDefault();
      focusItem(items[i - 1]);
      break;
    case 'Home':
      ev.preventDefault();
      focusItem(items[0]);
      break;
    case 'End':
      ev.preventDefault();
      focusItem(items[items.length - 1]);
      break;
    case 'ArrowRight':
      ev.preventDefault();
      if (li.dataset.type === 'DIRECTORY') {
        if (li.getAttribute('aria-expanded') === 'true') focusItem(items[i + 1]);
        else guarded(() => expand(li));
      }
      break;
    case 'ArrowLeft':
      ev.preventDefault();
      if (li.dataset.type === 'DIRECTORY' && li.getAttribute('aria-expanded') === 'true') collapse(li);
      else focusItem(li.parentElement.closest('li[role="treeitem"]'));
      break;
  }
}

// ---------- file view ----------

// utf16Index converts a byte offset into content (UTF-8) to a JavaScript string index.
function utf16Index(content, byteOffset) {
  const bytes = new TextEncoder().encode(content);
  const cut = Math.max(0, Math.min(byteOffset, bytes.length));
  return new TextDecoder().decode(bytes.subarray(0, cut)).length;
}

// openFile shows path; with a byte range [start, end) it highlights that range.
async function openFile(path, range) {
  await guarded(async () => {
    const res = await call('file_read', { project: state.project, path: path });
    state.openPath = path;
    $('view-path').textContent = path;
    $('view-path').classList.remove('muted');
    $('view-meta').textContent = res.file_size_bytes + ' bytes · utf-8';
    $('write-path').value = path;
    $('delete-path').value = path;
    const view = $('view');
    view.textContent = '';
    const text = res.content;
    if (range) {
      const a = utf16Index(text, range[0] - res.offset_bytes);
      const b = utf16Index(text, range[1] - res.offset_bytes);
      const mark = document.createElement('mark');
      mark.id = 'hit';
      mark.textContent = text.slice(a, b);
      view.append(text.slice(0, a), mark, text.slice(b));
      mark.scrollIntoView({ block: 'center' });
    } else {
      view.textContent = text;
      view.scrollTop = 0;
    }
    const note = $('view-note');
    note.hidden = !res.truncated;
    note.textContent = res.truncated
      ? 'Showing ' + formatBytes(res.read_bytes) + ' of ' + formatBytes(res.file_size_bytes) + '. ' + (res.note || '')
      : '';
    markOpen();
    status('Opened ' + path + (range ? ' at bytes ' + range[0] + '–' + range[1] : ''));
  });
}

function clearView() {
  state.openPath = '';
  $('view').textContent = '';
  $('view-meta').textContent = '';
  $('view-note').hidden = true;
  $('view-path').textContent = 'Select a file in the tree or a search result.';
  $('view-path').classList.add('muted');
}

// ---------- actions ----------

async function onWrite(ev) {
  ev.preventDefault();
  const path = $('write-path').value.trim();
  const mode = $('write-mode').value;
  const args = { project: state.project, path: path, content: $('write-content').value, mode: mode };
  if (mode === 'OVERWRITE') args.offset = Number($('write-offset').value || 0);
  await guarded(async () => {
    const res = await call('file_write', args);
    status('Wrote ' + res.bytes_written + ' bytes to ' + path + ' (' + mode.toLowerCase() + '); the file has ' +
      res.file_size_bytes + ' bytes');
    $('write-content').value = '';
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) state.expanded.add(dir);
    await loadTree();
    await openFile(path);
  });
}

function onDelete(ev) {
  ev.preventDefault();
  const path = $('delete-path').value.trim();
  const recursive = $('delete-recursive').checked;
  $('confirm-text').textContent = recursive
    ? 'Delete ' + path + ' and everything below it in project ' + state.project + '?'
    : 'Delete ' + path + ' in project ' + state.project + '?';
  const dialog = $('confirm-delete');
  dialog.returnValue = '';
  dialog.showModal();
}

async function onConfirmClose() {
  if ($('confirm-delete').returnValue !== 'delete') {
    status('Delete cancelled');
    return;
  }
  const path = $('delete-path').value.trim();
  const recursive = $('delete-recursive').checked;
  await guarded(async () => {
    const res = await call('file_delete', { project: state.project, path: path, recursive: recursive });
    const n = res && typeof res.deleted_files === 'number' ? ' (' + res.deleted_files + ' file(s))' : '';
    status('Deleted ' + path + n);
    if (state.openPath === path || state.openPath.startsWith(path + '/')) clearView();
    await loadTree();
  });
}

async function onSearch(ev) {
  ev.preventDefault();
  const args = { project: state.project, query: $('search-query').value };
  const prefix = $('search-prefix').value.trim();
  if (prefix) args.path_prefix = prefix;
  const limit = Number($('search-limit').value);
  if (limit) args.limit = limit;
  const list = $('results');
  await guarded(async () => {
    const res = await call('file_search', args);
    list.textContent = '';
    const chunks = res.chunks || [];
    for (const c of chunks) {
      const li = document.createElement('li');
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'result';
      const head = document.createElement('span');
      head.className = 'result-head';
      head.textContent = c.file_path + '  ·  bytes ' + c.file_seek_start_bytes + '–' + c.file_seek_end_bytes;
      const score = document.createElement('span');
      score.className = 'muted';
      score.textContent = 'score ' + Number(c.score).toFixed(3);
      const snippet = document.createElement('span');
      snippet.className = 'snippet';
      snippet.textContent = c.chunk_content.length > 240 ? c.chunk_content.slice(0, 240) + '…' : c.chunk_content;
      btn.append(head, score, snippet);
      btn.addEventListener('click', () => openFile(c.file_path, [c.file_seek_start_bytes, c.file_seek_end_bytes]));
      li.append(btn);
      list.append(li);
    }
    let summary = chunks.length + ' result' + (chunks.length === 1 ? '' : 's');
    if (res.truncated) summary += ' (more exist: raise the limit or narrow the query)';
    if (res.note) summary += ' — ' + res.note;
    $('search-summary').textContent = summary;
  });
}

// ---------- project and token ----------

function recentProjects() {
  try {
    return JSON.parse(localStorage.getItem(RECENT_KEY) || '[]');
  } catch (e) {
    return [];
  }
}

function rememberProject(p) {
  const list = [p].concat(recentProjects().filter((x) => x !== p)).slice(0, 12);
  localStorage.setItem(RECENT_KEY, JSON.stringify(list));
  localStorage.setItem(PROJECT_KEY, p);
  const dl = $('recent-projects');
  dl.textContent = '';
  for (const name of list) {
    const opt = document.createElement('option');
    opt.value = name;
    dl.append(opt);
  }
}

async function switchProject(p) {
  state.project = p;
  state.expanded.clear();
  clearView();
  $('results').textContent = '';
  $('search-summary').textContent = '';
  $('project').value = p;
  rememberProject(p);
  document.title = p + ' · FileIO';
  await guarded(async () => {
    await loadTree();
    status('Project ' + p);
  });
}

function init() {
  // A token in the URL fragment (#token=...) is stored and removed from the address bar;
  // fragments never reach the server.
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    localStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  state.token = localStorage.getItem(TOKEN_KEY) || '';
  $('token').value = state.token;

  $('tree').addEventListener('keydown', onTreeKey);
  $('tree').addEventListener('click', (ev) => {
    const li = ev.target.closest('li[role="treeitem"]');
    if (li) {
      ev.stopPropagation();
      activate(li);
    }
  });
  $('refresh').addEventListener('click', () => guarded(loadTree));
  $('write-form').addEventListener('submit', onWrite);
  $('write-mode').addEventListener('change', () => {
    $('write-offset').disabled = $('write-mode').value !== 'OVERWRITE';
  });
  $('delete-form').addEventListener('submit', onDelete);
  $('confirm-delete').addEventListener('close', onConfirmClose);
  $('search-form').addEventListener('submit', onSearch);
  $('project-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    switchProject($('project').value.trim());
  });
  $('token-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    state.token = $('token').value.trim();
    localStorage.setItem(TOKEN_KEY, state.token);
    status('Token saved in this browser');
    if (state.project) guarded(loadTree);
  });

  const project = localStorage.getItem(PROJECT_KEY) || 'demo';
  if (!state.token) {
    showError(new ToolError('UNAUTHENTICATED', 'enter the API token the server was started with (the no-flag run prints it, usually "dev")', 0));
    $('project').value = project;
    rememberProject(project);
    $('token').focus();
    return;
  }
  switchProject(project);
}

document.addEventListener('DOMContentLoaded', init);
