// The agentfiles console: one page over the agentfiles HTTP JSON API (POST /tools/{name}).
// Plain browser JavaScript, no build step, no dependencies.
'use strict';

const TOKEN_KEY = 'agentfiles.token';
const PROJECT_KEY = 'agentfiles.project';
const RECENT_KEY = 'agentfiles.recentProjects';
const LIST_LIMIT = 256;
const LIST_MAX_ENTRIES = 4096; // entries of one directory the tree loads, following next_cursor

const $ = (id) => document.getElementById(id);

const state = {
  token: '',
  project: '',
  openPath: '',       // the file shown in the view, '' for none
  selected: '',       // the tree item (file or directory) last activated: the default for Rename
  expanded: new Set(), // directory paths expanded in the tree
  mode: 'view',       // what the middle panel shows: 'view', 'edit' or 'history'
  edit: null,         // the edit in progress: {path, content, sha256, crlf, pending}
  historyPath: '',    // the path whose versions the history view lists
  patch: null         // the patch text last previewed, which Apply sends; null for none
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

// archiveURL is the archive route of the project, with the query.
function archiveURL(query) {
  return 'archive/' + encodeURIComponent(state.project) + '?' + new URLSearchParams(query).toString();
}

// archiveFailure turns a failed archive response into a ToolError.
async function archiveFailure(resp) {
  let err = {};
  try {
    err = (await resp.json()).error || {};
  } catch (e) { /* not JSON */ }
  return new ToolError(err.code || 'HTTP_' + resp.status, err.message || resp.statusText, resp.status);
}

// archiveDir is the directory an archive action works on: the selected directory, the
// directory of the selected file, or the project root ''.
function archiveDir() {
  const li = Array.from($('tree').querySelectorAll('li[role="treeitem"]')).find((x) => x.dataset.path === state.selected);
  if (!li) return '';
  if (li.dataset.type === 'DIRECTORY') return li.dataset.path;
  return li.dataset.path.slice(0, li.dataset.path.lastIndexOf('/'));
}

// downloadArchive downloads the selected directory (or the project) as a zip (GET /archive).
async function downloadArchive() {
  if (!state.project) return;
  const dir = archiveDir();
  status('Preparing ' + (dir || 'the project') + ' as a zip…');
  let resp;
  try {
    resp = await fetch(archiveURL({path: dir, format: 'zip'}), {headers: {'Authorization': 'Bearer ' + state.token}});
  } catch (e) {
    throw new ToolError('NETWORK', 'the server did not answer (' + e.message + '); is it still running?', 0);
  }
  if (!resp.ok) throw await archiveFailure(resp);
  const blob = await resp.blob();
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = state.project + (dir ? '-' + dir.slice(dir.lastIndexOf('/') + 1) : '') + '.zip';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  status('Downloaded ' + a.download + ' (' + blob.size + ' bytes)');
}

// uploadArchive imports the chosen archive into the selected directory (PUT /archive, merge).
async function uploadArchive(file) {
  if (!state.project || !file) return;
  const dir = archiveDir();
  status('Importing ' + file.name + ' into ' + (dir || 'the project root') + '…');
  let resp;
  try {
    resp = await fetch(archiveURL({path: dir, mode: 'merge'}), {
      method: 'PUT', headers: {'Authorization': 'Bearer ' + state.token}, body: file
    });
  } catch (e) {
    throw new ToolError('NETWORK', 'the server did not answer (' + e.message + '); is it still running?', 0);
  }
  if (!resp.ok) throw await archiveFailure(resp);
  const res = await resp.json();
  let text = 'Imported ' + res.files + ' files from ' + file.name + ' (' + res.created + ' new, ' + res.replaced + ' replaced)';
  if (res.skipped && res.skipped.length) {
    text += '; skipped ' + (res.skipped_total || res.skipped.length) + ' that are not text: ' + res.skipped.slice(0, 5).map((x) => x.entry).join(', ');
  }
  status(text);
  await loadTree();
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

// loadChildren lists dir (depth 1) into the <ul> container, re-expanding remembered dirs. A
// truncated listing is continued with its next_cursor, up to LIST_MAX_ENTRIES entries.
async function loadChildren(container, dir, level) {
  const args = { project: state.project, path: dir, depth: 1, limit: LIST_LIMIT };
  let res = await call('file_list', args);
  let entries = res.entries;
  while (res.truncated && res.next_cursor && entries.length < LIST_MAX_ENTRIES) {
    res = await call('file_list', Object.assign({}, args, { cursor: res.next_cursor }));
    entries = entries.concat(res.entries);
  }
  container.textContent = '';
  for (const entry of entries) {
    const li = treeItem(entry, level);
    container.append(li);
    if (entry.type === 'DIRECTORY' && state.expanded.has(entry.path)) {
      await expand(li);
    }
  }
  if (res.truncated) {
    const more = document.createElement('li');
    more.className = 'muted more';
    more.setAttribute('role', 'none');
    more.textContent = 'only the first ' + entries.length + ' entries are shown';
    container.append(more);
  }
  if (state.openPath) markOpen();
  return entries.length;
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
  state.selected = li.dataset.path;
  updateTools();
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

// openFile shows path; with a byte range [start, end) it highlights that range. It switches the
// panel to the file view unless keepMode is set (the history view refreshes the file behind it).
async function openFile(path, range, keepMode, line) {
  if (!keepMode && !leaveEdit()) return;
  await guarded(async () => {
    const res = await call('file_read', { project: state.project, path: path });
    if (!keepMode) setMode('view');
    state.openPath = path;
    state.selected = path;
    updateTools();
    $('view-path').textContent = path;
    $('view-path').classList.remove('muted');
    $('view-meta').textContent = res.size_bytes + ' bytes · utf-8';
    $('write-path').value = path;
    $('delete-path').value = path;
    const view = $('view');
    view.textContent = '';
    const text = res.content;
    if (line && !range) range = lineRange(text, line, res.offset);
    if (range) {
      const a = utf16Index(text, range[0] - res.offset);
      const b = utf16Index(text, range[1] - res.offset);
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
    note.hidden = !res.truncated || state.mode !== 'view';
    note.textContent = res.truncated
      ? 'Showing ' + formatBytes(res.read_bytes) + ' of ' + formatBytes(res.size_bytes) + '. ' + (res.note || '')
      : '';
    markOpen();
    status('Opened ' + path + (line ? ' at line ' + line : range ? ' at bytes ' + range[0] + '–' + range[1] : ''));
  });
}

// lineRange is the byte range [start, end) of 1-based line n of text (read from byte offset
// base), without its newline; the end of the text when the file has fewer lines.
function lineRange(text, n, base) {
  const bytes = new TextEncoder().encode(text);
  let start = 0;
  for (let k = 1; k < n && start < bytes.length; k++) {
    const nl = bytes.indexOf(10, start);
    if (nl < 0) {
      start = bytes.length;
      break;
    }
    start = nl + 1;
  }
  let end = bytes.indexOf(10, start);
  if (end < 0) end = bytes.length;
  return [base + start, base + end];
}

function clearView() {
  state.openPath = '';
  state.selected = '';
  state.edit = null;
  $('view').textContent = '';
  $('view-meta').textContent = '';
  $('view-note').textContent = '';
  setMode('view');
  updateTools();
  $('view-path').textContent = 'Select a file in the tree or a search result.';
  $('view-path').classList.add('muted');
}

// ---------- panel modes ----------

// setMode shows one of the middle panel's views: the file ('view'), the editor ('edit') or the
// versions of a file ('history').
function setMode(mode) {
  state.mode = mode;
  $('view').hidden = mode !== 'view';
  $('view-note').hidden = mode !== 'view' || $('view-note').textContent === '';
  $('editor').hidden = mode !== 'edit';
  $('history').hidden = mode !== 'history';
  $('edit-btn').setAttribute('aria-pressed', String(mode === 'edit'));
  $('history-btn').setAttribute('aria-pressed', String(mode === 'history'));
  if (mode !== 'edit') state.edit = null;
}

// updateTools enables the file actions that make sense now.
function updateTools() {
  $('edit-btn').disabled = !state.openPath;
  $('rename-btn').disabled = !state.project || !(state.selected || state.openPath);
  $('history-btn').disabled = !state.project;
}

// leaveEdit asks before unsaved edits are dropped; false means stay in the editor.
function leaveEdit() {
  const e = state.edit;
  if (state.mode !== 'edit' || !e) return true;
  if (editedText() === e.content) return true;
  return window.confirm('Discard your unsaved changes to ' + e.path + '?');
}

// ---------- edit ----------

function utf8Length(s) {
  return new TextEncoder().encode(s).length;
}

// sha256Hex returns the hex SHA-256 of text's UTF-8 bytes, or '' where the browser has no Web
// Crypto (pages served over plain HTTP from a host other than localhost).
async function sha256Hex(text) {
  if (!window.crypto || !crypto.subtle) return '';
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

// startEdit reads the open file afresh and shows it in the editor. The sha256 of what was read
// goes with every file_edit as expected_sha256, so a save never overwrites someone else's change.
// In the editor already, it only focuses the text unless reload is set (after a conflict).
async function startEdit(reload) {
  const path = state.openPath;
  if (!path) return;
  if (state.mode === 'edit' && state.edit && !reload) {
    $('edit-text').focus();
    return;
  }
  if (!reload && !leaveEdit()) return;
  await guarded(async () => {
    const res = await call('file_read', { project: state.project, path: path });
    if (res.truncated || res.offset !== 0) {
      throw new ToolError('TOO_LARGE', 'the file is larger than one read (' + formatBytes(res.size_bytes) +
        '), so the console cannot edit it; use the file_edit tool with a short old_str instead', 0);
    }
    let sha = await sha256Hex(res.content);
    if (!sha) {
      // No Web Crypto: take the current version's sha256 from file_versions. It is checked
      // against the size read; a write between the two calls with the same size would go
      // unnoticed until the save, where the old_str match still guards the text edited.
      const vs = await call('file_versions', { project: state.project, path: path });
      const cur = (vs.versions || []).find((v) => v.current);
      if (!cur || cur.size_bytes !== utf8Length(res.content)) {
        throw new ToolError('CONFLICT', 'the file changed while it was opened for editing; press Edit again', 0);
      }
      sha = cur.sha256;
    }
    const content = res.content;
    // A textarea turns every line break into \n. A file with \r\n throughout gets its \r\n
    // back on saving; other \r line breaks are changed, and the note says so.
    const crlf = content.includes('\r\n') && !/(^|[^\r])\n/.test(content) && !/\r(?!\n)/.test(content);
    setMode('edit');
    state.edit = { path: path, content: content, sha256: sha, crlf: crlf, pending: null };
    $('edit-text').value = content;
    $('review').hidden = true;
    $('conflict').hidden = true;
    const note = $('edit-note');
    note.textContent = '';
    if (content === '') note.textContent = 'The file is empty: its new text is saved as lines (a final line break is added).';
    else if (content.includes('\r') && !crlf) note.textContent = 'This file has mixed or carriage-return line breaks; saving turns them into \\n.';
    note.hidden = note.textContent === '';
    $('edit-text').focus();
    status('Editing ' + path + ': change the text, then Review changes');
  });
}

// editedText is the editor's text with the file's line breaks.
function editedText() {
  const text = $('edit-text').value;
  return state.edit && state.edit.crlf ? text.replace(/\n/g, '\r\n') : text;
}

// lineStart and lineEnd move an index of s to the start of its line and past the end of its line
// (after the \n).
function lineStart(s, i) {
  return i <= 0 ? 0 : s.lastIndexOf('\n', i - 1) + 1;
}
function lineEnd(s, i) {
  if (i > 0 && s[i - 1] === '\n') return i;
  const n = s.indexOf('\n', i);
  return n === -1 ? s.length : n + 1;
}

// editFor returns the file_edit arguments that turn old into neu, or null when they are equal.
// Rather than one edit whose old_str is the whole file (which would send the file twice and
// could hit the per-call payload limit), it sends the changed lines only: the common head and
// tail are cut off, the rest is widened to whole lines and then line by line (after, before, …) until it
// occurs exactly once in old, as file_edit requires. expected_sha256 guarantees that the file is
// still old, so uniqueness checked here holds on the server. An empty file has nothing for
// old_str to match, so its text goes in with the insert form (which ends it with a line break).
function editFor(old, neu) {
  if (old === neu) return null;
  if (old === '') return { insert_line: 0, insert_text: neu };
  const max = Math.min(old.length, neu.length);
  let p = 0;
  while (p < max && old[p] === neu[p]) p++;
  let s = 0;
  while (s < max - p && old[old.length - 1 - s] === neu[neu.length - 1 - s]) s++;
  const e = old.length - s;
  let a = lineStart(old, p);
  let b = lineEnd(old, e);
  let str = old.slice(a, b);
  // Widen by one line at a time, after and before by turns (only where there is more).
  for (let after = true; str === '' || old.indexOf(str) !== old.lastIndexOf(str); after = !after) {
    if (a === 0 && b === old.length) break;
    if ((after && b < old.length) || a === 0) b = lineEnd(old, b + 1);
    else a = lineStart(old, a - 1);
    str = old.slice(a, b);
  }
  return { edits: [{ old_str: str, new_str: old.slice(a, p) + neu.slice(p, neu.length - s) + old.slice(e, b) }] };
}

// renderDiff shows a unified diff in pre (default #diff), one text node per line (nothing is
// parsed as HTML), added and removed lines coloured.
function renderDiff(diff, pre = $('diff')) {
  pre.textContent = '';
  for (const line of diff.split('\n')) {
    const span = document.createElement('span');
    if (line.startsWith('+++') || line.startsWith('---')) span.className = 'd-file';
    else if (line.startsWith('@@')) span.className = 'd-hunk';
    else if (line.startsWith('+')) span.className = 'd-add';
    else if (line.startsWith('-')) span.className = 'd-del';
    else if (line.startsWith('\\')) span.className = 'd-note';
    span.textContent = line + '\n';
    pre.append(span);
  }
}

// showConflict says that the file changed since it was opened for editing.
function showConflict(err) {
  $('review').hidden = true;
  if (state.edit) state.edit.pending = null;
  // err.message (the API's advice to read again) is what Reload does, so the box says it plainly.
  $('conflict-text').textContent = state.edit.path + ' changed since you opened it for editing, so nothing was saved' +
    (err.status ? ' (HTTP ' + err.status + ')' : '') + '. Your text is still in the editor: copy what you need, then reload the file and edit again.';
  $('conflict').hidden = false;
  status('Not saved: ' + state.edit.path + ' changed meanwhile');
}

// editCall runs file_edit; CONFLICT is shown next to the editor instead of in the banner.
async function editCall(args) {
  try {
    clearError();
    return await call('file_edit', args);
  } catch (err) {
    if (err.code === 'CONFLICT') showConflict(err); else showError(err);
    return undefined;
  }
}

// reviewEdit asks file_edit for the diff (dry_run) and shows it; nothing is saved yet.
async function reviewEdit() {
  const e = state.edit;
  if (!e) return;
  $('conflict').hidden = true;
  const neu = editedText();
  const change = editFor(e.content, neu);
  if (!change) {
    e.pending = null;
    $('review').hidden = true;
    status('No changes to save in ' + e.path);
    return;
  }
  const args = Object.assign({ project: state.project, path: e.path, expected_sha256: e.sha256 }, change);
  const res = await editCall(Object.assign({ dry_run: true }, args));
  if (!res || state.edit !== e || editedText() !== neu) return;
  e.pending = args;
  renderDiff(res.diff || '');
  $('diff-summary').textContent = 'Changes to ' + e.path + ': ' + utf8Length(e.content) + ' → ' + res.size_bytes +
    ' bytes. Nothing is saved until you press Save.';
  $('review').hidden = false;
  $('edit-save').focus();
  status('Review the changes to ' + e.path + ', then Save');
}

// saveEdit sends the reviewed edit without dry_run.
async function saveEdit() {
  const e = state.edit;
  if (!e || !e.pending) return;
  const res = await editCall(e.pending);
  if (!res) return;
  staleResults();
  state.edit = null;
  setMode('view');
  await guarded(loadTree);
  await openFile(e.path);
  status('Saved ' + e.path + ': ' + res.size_bytes + ' bytes, sha256 ' + res.sha256.slice(0, 12) + '… (the previous content is in its History)');
}

// ---------- rename ----------

function openRename() {
  const from = state.selected || state.openPath;
  $('rename-from').value = from;
  $('rename-to').value = from;
  $('rename-overwrite').checked = false;
  const dialog = $('rename-dialog');
  dialog.returnValue = '';
  dialog.showModal();
  $('rename-to').focus();
}

// movedPath is where path is after from moved to to ('' when it was not below from).
function movedPath(path, from, to) {
  if (path === from) return to;
  if (path.startsWith(from + '/')) return to + path.slice(from.length);
  return '';
}

async function onRenameClose() {
  if ($('rename-dialog').returnValue !== 'rename') {
    status('Rename cancelled');
    return;
  }
  const from = $('rename-from').value.trim();
  const to = $('rename-to').value.trim();
  const overwrite = $('rename-overwrite').checked;
  if (!leaveEdit()) return;
  await guarded(async () => {
    const res = await call('file_rename', { project: state.project, from: from, to: to, overwrite: overwrite });
    staleResults();
    for (const dir of Array.from(state.expanded)) {
      const moved = movedPath(dir, from, to);
      if (moved) {
        state.expanded.delete(dir);
        state.expanded.add(moved);
      }
    }
    for (let dir = parentOf(to); dir !== ''; dir = parentOf(dir)) state.expanded.add(dir);
    const open = movedPath(state.openPath, from, to);
    if (movedPath(state.selected, from, to)) state.selected = movedPath(state.selected, from, to);
    if (state.mode === 'history' && movedPath(state.historyPath, from, to)) setMode('view');
    await loadTree();
    if (open) await openFile(open);
    const n = res && typeof res.files === 'number' ? ' (' + res.files + ' file' + (res.files === 1 ? '' : 's') + ')' : '';
    status('Renamed ' + from + ' to ' + to + n);
  });
}

// ---------- history ----------

function resetHistory() {
  state.historyPath = '';
  $('history-path').value = '';
  $('history-summary').textContent = '';
  $('versions').hidden = true;
  $('versions').tBodies[0].textContent = '';
  hideVersionView();
}

function hideVersionView() {
  $('version-head').hidden = true;
  $('version-view').hidden = true;
  $('version-view').textContent = '';
}

// showHistory switches the panel to the versions of path; with no path it waits for one to be
// typed (a deleted file, for example).
async function showHistory(path) {
  if (!leaveEdit()) return;
  setMode('history');
  $('history-path').value = path || '';
  if (!path) {
    $('history-summary').textContent = 'Type the path of a file, also of a deleted one, to list its kept versions.';
    $('versions').hidden = true;
    $('history-path').focus();
    return;
  }
  await loadVersions(path);
}

function formatTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return isNaN(d) ? String(iso) : d.toISOString().replace('T', ' ').slice(0, 19);
}

function cell(text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  return td;
}

function actionButton(label, action, version) {
  const btn = document.createElement('button');
  btn.type = 'button';
  btn.className = 'plain small';
  btn.textContent = label;
  btn.dataset.action = action;
  btn.dataset.version = String(version);
  return btn;
}

// loadVersions lists file_versions of path, newest first, each with View and Restore.
async function loadVersions(path) {
  if (!path) return;
  await guarded(async () => {
    const res = await call('file_versions', { project: state.project, path: path });
    state.historyPath = path; // the field already says path: showHistory or the user put it there
    hideVersionView();
    const body = $('versions').tBodies[0];
    body.textContent = '';
    const versions = res.versions || [];
    for (const v of versions) {
      const tr = document.createElement('tr');
      tr.dataset.version = String(v.version);
      if (v.current) tr.className = 'current';
      let kind = 'replaced by a later version';
      if (v.current) kind = 'current content';
      else if (v.deleted) kind = 'deleted or renamed away';
      const kindCell = cell(kind, 'kind');
      if (!v.current && v.replaced_at) kindCell.title = 'replaced ' + formatTime(v.replaced_at) + ' UTC';
      const sha = cell(v.sha256.slice(0, 12) + '…', 'mono');
      sha.title = v.sha256;
      const actions = document.createElement('td');
      actions.className = 'version-actions';
      actions.append(actionButton('View', 'view', v.version));
      if (!v.current) actions.append(actionButton('Restore', 'restore', v.version));
      tr.append(cell('v' + v.version, 'mono'), cell(formatTime(v.written_at), 'nowrap'), cell(formatBytes(v.size_bytes), 'nowrap'), sha, kindCell, actions);
      body.append(tr);
    }
    $('versions').hidden = versions.length === 0;
    const exists = versions.some((v) => v.current);
    let summary = versions.length + ' version' + (versions.length === 1 ? '' : 's') + ' of ' + path + ', newest first.';
    if (versions.length === 0) summary = 'No versions of ' + path + ' are kept.';
    else if (!exists) summary += ' The file does not exist now (deleted or renamed): Restore brings a version back.';
    $('history-summary').textContent = summary;
    status('History of ' + path);
  });
}

async function onVersionAction(ev) {
  const btn = ev.target.closest('button[data-action]');
  if (!btn) return;
  const path = state.historyPath;
  const version = Number(btn.dataset.version);
  if (btn.dataset.action === 'view') {
    await guarded(async () => {
      const res = await call('file_read', { project: state.project, path: path, version: version });
      $('version-head').textContent = path + ' · version ' + version + ' · ' + res.size_bytes + ' bytes' +
        (res.truncated ? ' (the first ' + formatBytes(res.read_bytes) + ' shown)' : '') + ' · read-only';
      $('version-head').hidden = false;
      $('version-view').textContent = res.content;
      $('version-view').hidden = false;
      status('Viewing version ' + version + ' of ' + path);
    });
    return;
  }
  await guarded(async () => {
    const res = await call('file_restore', { project: state.project, path: path, version: version });
    staleResults();
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) state.expanded.add(dir);
    await loadTree();
    await openFile(path, undefined, true);
    await loadVersions(path);
    status('Restored version ' + res.restored_version + ' of ' + path + (res.created ? ' (the deleted file exists again)' : '') +
      ': ' + res.size_bytes + ' bytes; the content it replaced is kept as a version');
  });
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
      res.size_bytes + ' bytes');
    $('write-content').value = '';
    staleResults();
    for (let dir = parentOf(path); dir !== ''; dir = parentOf(dir)) state.expanded.add(dir);
    await loadTree();
    await openFile(path);
  });
}

// ---------- patch ----------

// patchSummary lists what a file_apply_patch answer did (or would do) to each file.
function patchSummary(res) {
  return res.files.map((f) => f.operation + ' ' + (f.moved_from ? f.moved_from + ' → ' : '') + f.path).join(', ');
}

// previewPatch asks file_apply_patch for a dry run and shows every file's diff; nothing changes
// until Apply, which sends exactly the previewed text.
async function previewPatch(ev) {
  ev.preventDefault();
  const text = $('patch-text').value;
  state.patch = null;
  $('patch-apply').disabled = true;
  await guarded(async () => {
    const res = await call('file_apply_patch', { project: state.project, patch: text, dry_run: true });
    state.patch = text;
    renderDiff(res.files.map((f) => f.diff || (f.operation + ' ' + f.path + '\n')).join(''), $('patch-diff'));
    $('patch-diff').hidden = false;
    $('patch-summary').textContent = 'Preview: ' + patchSummary(res) + '. Nothing is changed until you press Apply.';
    $('patch-apply').disabled = false;
    status('Review the patch, then Apply');
  });
}

// applyPatch applies the previewed patch, all of it or nothing.
async function applyPatch() {
  const text = state.patch;
  if (text === null) return;
  await guarded(async () => {
    const res = await call('file_apply_patch', { project: state.project, patch: text });
    state.patch = null;
    $('patch-apply').disabled = true;
    $('patch-text').value = '';
    $('patch-diff').hidden = true;
    $('patch-summary').textContent = 'Applied: ' + patchSummary(res) + '.';
    status('Applied the patch to ' + res.files.length + (res.files.length === 1 ? ' file' : ' files'));
    staleResults();
    await loadTree();
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
    staleResults();
    if (state.openPath === path || state.openPath.startsWith(path + '/')) clearView();
    await loadTree();
  });
}

// staleResults clears the search results after a write or delete: their byte ranges and
// snippets may no longer match the files.
function staleResults() {
  if (!$('results').hasChildNodes()) return;
  $('results').textContent = '';
  $('search-summary').textContent = 'Files changed since the last search: search again for fresh results.';
}

// searchKind is "meaning" (file_search) or "exact" (file_grep).
function searchKind() {
  return $('search-kind-exact').checked ? 'exact' : 'meaning';
}

function onSearchKind() {
  const exact = searchKind() === 'exact';
  $('grep-options').hidden = !exact;
  $('search-prefix').previousElementSibling.textContent = exact ? 'Directory' : 'Path prefix';
  $('search-query').placeholder = exact ? 'text or pattern, e.g. TODO' : 'what are you looking for?';
}

// addFilters adds the search form's glob and limit, when given, to a search's arguments.
function addFilters(args) {
  const glob = $('search-glob').value.trim();
  if (glob) args.glob = glob;
  const limit = Number($('search-limit').value);
  if (limit) args.limit = limit;
}

// clip cuts a result's text to 240 characters for the list.
function clip(text) {
  return text.length > 240 ? text.slice(0, 240) + '…' : text;
}

async function onSearch(ev) {
  ev.preventDefault();
  if (searchKind() === 'exact') {
    await onGrep();
    return;
  }
  const args = { project: state.project, query: $('search-query').value };
  const prefix = $('search-prefix').value.trim();
  if (prefix) args.path_prefix = prefix;
  addFilters(args);
  const list = $('results');
  await guarded(async () => {
    const res = await call('file_search', args);
    list.textContent = '';
    const chunks = res.chunks || [];
    for (const c of chunks) {
      const snippet = clip(c.chunk_content);
      list.append(resultItem(c.file_path + '  ·  bytes ' + c.file_seek_start_bytes + '–' + c.file_seek_end_bytes,
        'score ' + Number(c.score).toFixed(3), snippet,
        () => openFile(c.file_path, [c.file_seek_start_bytes, c.file_seek_end_bytes])));
    }
    let summary = chunks.length + ' result' + (chunks.length === 1 ? '' : 's');
    if (res.truncated) summary += ' (more exist: raise the limit or narrow the query)';
    if (res.note) summary += ' — ' + res.note;
    $('search-summary').textContent = summary;
  });
}

// onGrep runs file_grep: the matching lines, each opening its file at the line.
async function onGrep() {
  const args = { project: state.project, pattern: $('search-query').value, fixed_strings: !$('search-regex').checked,
    ignore_case: $('search-ignore-case').checked };
  const dir = $('search-prefix').value.trim();
  if (dir && dir !== '/') args.path = dir.replace(/\/+$/, '');
  addFilters(args);
  const list = $('results');
  await guarded(async () => {
    const res = await call('file_grep', args);
    list.textContent = '';
    const matches = res.matches || [];
    for (const m of matches) {
      const line = clip(m.line);
      list.append(resultItem(m.path + ':' + m.line_number, 'line ' + m.line_number, line,
        () => openFile(m.path, null, false, m.line_number)));
    }
    let summary = matches.length + ' matching line' + (matches.length === 1 ? '' : 's') +
      ' in ' + res.scanned_files + ' file' + (res.scanned_files === 1 ? '' : 's') + ' read';
    if (res.truncated) summary += ' (more exist: raise the limit or narrow the directory or glob)';
    $('search-summary').textContent = summary;
  });
}

// resultItem is one entry of the results list: a button that opens the hit.
function resultItem(headText, scoreText, snippetText, open) {
  const li = document.createElement('li');
  const btn = document.createElement('button');
  btn.type = 'button';
  btn.className = 'result';
  const head = document.createElement('span');
  head.className = 'result-head';
  head.textContent = headText;
  const score = document.createElement('span');
  score.className = 'muted';
  score.textContent = scoreText;
  const snippet = document.createElement('span');
  snippet.className = 'snippet';
  snippet.textContent = snippetText;
  btn.append(head, score, snippet);
  btn.addEventListener('click', open);
  li.append(btn);
  return li;
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
  resetHistory();
  $('results').textContent = '';
  $('search-summary').textContent = '';
  $('project').value = p;
  rememberProject(p);
  document.title = p + ' · agentfiles';
  await guarded(async () => {
    await loadTree();
    status('Project ' + p);
  });
}

// tokenFromHash stores a token in the URL fragment (#token=...) and removes it from the address
// bar; fragments never reach the server. It reports whether there was one.
function tokenFromHash() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (!m) return false;
  localStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, '', location.pathname + location.search);
  return true;
}

// onHashChange takes a new #token= pasted into the address bar of the open page: the old
// token, its error and the project's view are replaced.
function onHashChange() {
  if (!tokenFromHash()) return;
  state.token = localStorage.getItem(TOKEN_KEY) || '';
  $('token').value = state.token;
  clearError();
  switchProject(state.project || localStorage.getItem(PROJECT_KEY) || 'demo')
    .then(() => { if ($('error').hidden) status('Token from the address bar saved in this browser'); });
}

function init() {
  tokenFromHash();
  state.token = localStorage.getItem(TOKEN_KEY) || '';
  $('token').value = state.token;
  window.addEventListener('hashchange', onHashChange);

  $('tree').addEventListener('keydown', onTreeKey);
  $('tree').addEventListener('click', (ev) => {
    const li = ev.target.closest('li[role="treeitem"]');
    if (li) {
      ev.stopPropagation();
      activate(li);
    }
  });
  $('refresh').addEventListener('click', () => guarded(loadTree));
  $('download-btn').addEventListener('click', () => guarded(downloadArchive));
  $('upload-input').addEventListener('change', (ev) => {
    const file = ev.target.files[0];
    ev.target.value = '';
    guarded(() => uploadArchive(file));
  });
  $('write-form').addEventListener('submit', onWrite);
  $('write-mode').addEventListener('change', () => {
    $('write-offset').disabled = $('write-mode').value !== 'OVERWRITE';
  });
  $('delete-form').addEventListener('submit', onDelete);
  $('patch-form').addEventListener('submit', previewPatch);
  $('patch-apply').addEventListener('click', applyPatch);
  $('patch-text').addEventListener('input', () => {
    // A changed text needs a new preview before it can be applied.
    state.patch = null;
    $('patch-apply').disabled = true;
  });
  $('confirm-delete').addEventListener('close', onConfirmClose);
  $('search-form').addEventListener('submit', onSearch);
  $('search-kind-meaning').addEventListener('change', onSearchKind);
  $('search-kind-exact').addEventListener('change', onSearchKind);
  $('edit-btn').addEventListener('click', () => startEdit(false));
  $('edit-cancel').addEventListener('click', () => { if (leaveEdit()) { setMode('view'); status('Edit cancelled'); } });
  $('edit-review').addEventListener('click', reviewEdit);
  $('edit-back').addEventListener('click', () => { $('review').hidden = true; $('edit-text').focus(); });
  $('edit-save').addEventListener('click', saveEdit);
  $('edit-text').addEventListener('input', () => {
    // The reviewed diff no longer matches the text: Save must not send it.
    $('review').hidden = true;
    if (state.edit) state.edit.pending = null;
  });
  $('conflict-reload').addEventListener('click', () => startEdit(true));
  $('rename-btn').addEventListener('click', openRename);
  $('rename-cancel').addEventListener('click', () => $('rename-dialog').close('cancel'));
  $('rename-dialog').addEventListener('close', onRenameClose);
  $('history-btn').addEventListener('click', () => showHistory(state.openPath || state.historyPath));
  $('history-close').addEventListener('click', () => setMode('view'));
  $('history-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    loadVersions($('history-path').value.trim());
  });
  $('versions').addEventListener('click', onVersionAction);
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
