/// The playground's one page: plain HTML, CSS and JavaScript, served by the tool itself (nothing
/// fetched from elsewhere). The elements tests and automation drive keep their ids: `context`,
/// `file`, `mappings` and `payload` (the texts edited), `output`, `issues`, `diagnostics`,
/// `explain`, `tests`, `share`, `save`, `format-payload`, `new-project` and `new-model`.
enum PlaygroundPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Mappings playground</title>
        <style>
          :root { --line: 1.4em; font-family: system-ui, sans-serif; color: #1d2329; background: #f6f7f9; }
          body { margin: 0; }
          header { display: flex; gap: 1em; align-items: center; padding: .6em 1em; background: #24303c; color: #fff; flex-wrap: wrap; }
          header h1 { font-size: 1.1em; margin: 0 1em 0 0; }
          header label { font-size: .9em; }
          header select, header button { font: inherit; font-size: .9em; }
          #status { font-size: .85em; opacity: .8; }
          main { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; padding: 1em; }
          main > section { min-width: 0; }
          h2 { font-size: .95em; margin: .8em 0 .3em; }
          .editor { display: flex; border: 1px solid #c9d1d9; background: #fff; height: 22em; }
          .editor.payload { height: 12em; }
          .gutter { margin: 0; padding: .4em .3em; min-width: 3.2em; text-align: right; color: #8a96a3; background: #eef1f4;
                    font: 13px/var(--line) ui-monospace, monospace; overflow: hidden; user-select: none; }
          .gutter .marked { color: #b3261e; font-weight: bold; background: #fde2e1; }
          .gutter .warned { color: #8a5a00; font-weight: bold; background: #fff1cc; }
          textarea { flex: 1; border: 0; resize: none; padding: .4em; font: 13px/var(--line) ui-monospace, monospace; white-space: pre; outline: none; }
          pre.result { margin: 0; padding: .5em; border: 1px solid #c9d1d9; background: #fff; max-height: 20em; overflow: auto; font: 13px/1.35 ui-monospace, monospace; }
          ul.list { margin: 0; padding: 0; list-style: none; border: 1px solid #c9d1d9; background: #fff; min-height: 1.6em; }
          ul.list li { padding: .25em .5em; border-bottom: 1px solid #eef1f4; font: 13px/1.35 ui-monospace, monospace; white-space: pre-wrap; }
          ul.list li.error { color: #b3261e; cursor: pointer; }
          ul.list li.warning { color: #8a5a00; cursor: pointer; }
          ul.list li.passed { color: #1a7f37; }
          ul.list li.failed { color: #b3261e; }
          ul.list li.none { color: #8a96a3; }
          pre.result.stale { opacity: .45; }
          h2 button, h2 input { font: inherit; font-size: .8em; font-weight: normal; margin-left: .6em; }
          #share-box { padding: .5em 1em; background: #fff6d6; border-bottom: 1px solid #e7d38a; font-size: .9em; }
          #share-box input { width: 60%; font: 12px ui-monospace, monospace; }
        </style>
        </head>
        <body>
        <header>
          <h1>Mappings playground</h1>
          <label>Context <select id="context"></select></label>
          <label>File <select id="file"></select></label>
          <button id="share" type="button">Share</button>
          <button id="save" type="button" hidden>Save to files</button>
          <span id="status"></span>
        </header>
        <div id="share-box" hidden>
          <strong>The link holds your mappings, scripts and payload: scrub any private data before you share it.</strong>
          <input id="share-link" readonly>
        </div>
        <main>
          <section>
            <h2 id="file-title">Mappings</h2>
            <div class="editor"><pre class="gutter" id="mappings-gutter"></pre><textarea id="mappings" spellcheck="false" aria-label="the file"></textarea></div>
            <h2>Payload <button id="format-payload" type="button">Format</button>
              <button id="new-project" type="button" title="mappings init on this payload: models, contexts and tests inferred from it">New from this payload</button>
              <input id="new-model" value="Record" size="10" aria-label="the new project's model name"></h2>
            <div class="editor payload"><pre class="gutter" id="payload-gutter"></pre><textarea id="payload" spellcheck="false" aria-label="the payload"></textarea></div>
            <h2>Load diagnostics</h2>
            <ul class="list" id="diagnostics"></ul>
          </section>
          <section>
            <h2>Output</h2>
            <pre class="result" id="output"></pre>
            <h2>Issues</h2>
            <ul class="list" id="issues"></ul>
            <h2>Tests</h2>
            <ul class="list" id="tests"></ul>
            <h2>Explain</h2>
            <pre class="result" id="explain"></pre>
          </section>
        </main>
        <script>
        "use strict";
        const $ = (id) => document.getElementById(id);
        const files = {}, original = {}, kinds = {};
        let contextFiles = {}, contextLines = {}, current = null, writes = false, sequence = 0, timer = null, lastAnswer = null;
        // What the page last said about the payload itself (Format on text that is not JSON): it
        // stays said, through the runs its typing starts, until the payload changes.
        let payloadNote = null;
        // A new project from the payload (`New from this payload`): its files are the page's alone.
        let project = false;

        function option(select, value, text) {
          const element = document.createElement("option");
          element.value = value; element.textContent = text || value; select.appendChild(element);
        }

        function gutter(id, text, marks) {
          const lines = text.split("\n").length, out = [];
          for (let line = 1; line <= lines; line++) {
            const mark = marks[line];
            out.push(mark ? '<span class="' + mark + '">' + line + "</span>" : String(line));
          }
          $(id + "-gutter").innerHTML = out.join("\n");
          $(id + "-gutter").scrollTop = $(id).scrollTop;
        }

        function marksFor(file, answer) {
          const marks = {};
          if (!answer) return marks;
          for (const d of (answer.diagnostics || []).concat(answer.payloadError || [])) {
            if (d.file === file && d.line) marks[d.line] = d.severity === "warning" ? (marks[d.line] || "warned") : "marked";
          }
          return marks;
        }

        function refreshGutters() {
          gutter("mappings", $("mappings").value, marksFor(current, lastAnswer));
          gutter("payload", $("payload").value, marksFor("payload", lastAnswer));
        }

        function show(path) {
          current = path;
          $("file").value = path;
          $("mappings").value = files[path];
          $("file-title").textContent = (kinds[path] === "script" ? "Script " : "Mappings ") + path;
          refreshGutters();
        }

        function showPlace(file, line) {
          const area = file === "payload" ? $("payload") : $("mappings");
          if (file !== "payload") { if (!(file in files)) return; show(file); }
          const lines = area.value.split("\n");
          let start = 0;
          for (let i = 0; i < Math.max(0, line - 1) && i < lines.length; i++) start += lines[i].length + 1;
          const end = start + (lines[line - 1] || "").length;
          area.focus();
          area.setSelectionRange(start, end);
          area.scrollTop = Math.max(0, (line - 4) * parseFloat(getComputedStyle(area).lineHeight || "18"));
        }

        function scrollTo(line) {
          if (!line) return;
          const area = $("mappings");
          area.scrollTop = Math.max(0, (line - 2) * parseFloat(getComputedStyle(area).lineHeight || "18"));
          $("mappings-gutter").scrollTop = area.scrollTop;
        }

        function item(list, text, className, place) {
          const li = document.createElement("li");
          li.textContent = text;
          if (className) li.className = className;
          if (place && place.file) {
            li.dataset.file = place.file; li.dataset.line = place.line || 1;
            li.addEventListener("click", () => showPlace(place.file, place.line || 1));
          }
          list.appendChild(li);
        }

        function render(answer) {
          lastAnswer = answer;
          const output = $("output"), issues = $("issues"), diagnostics = $("diagnostics"), tests = $("tests");
          // While the files do not load, the last output stays, dimmed: what the edit is about to change.
          const unloaded = !answer.testsRun && (answer.diagnostics || []).some((d) => d.severity !== "warning");
          output.classList.toggle("stale", unloaded && output.textContent !== "");
          if (unloaded) output.title = output.textContent ? "the files do not load: the last output, kept" : "";
          else {
            output.title = "";
            output.textContent = answer.output != null ? answer.output
              : answer.filtered ? "dropped by \"@filter\": no result" : "";
          }
          issues.replaceChildren(); diagnostics.replaceChildren(); tests.replaceChildren();
          for (const issue of answer.issues || []) {
            item(issues, issue.path + "  " + issue.property + "  [" + issue.kind + "]  " + issue.message
              + "  (" + issue.file + ":" + issue.line + ")", issue.severity === "error" ? "error" : "warning",
              {file: issue.file, line: issue.line});
          }
          if (!(answer.issues || []).length) item(issues, answer.output != null ? "no issues" : "—", "none");
          for (const d of (answer.payloadError || []).concat(answer.diagnostics || [])) {
            const where = d.file ? d.file + ":" + d.line + ":" + d.column + ": " : "";
            item(diagnostics, where + d.severity + ": " + d.message + (d.help ? "\n  help: " + d.help : ""),
              d.severity === "warning" ? "warning" : "error", d.file ? {file: d.file, line: d.line} : null);
          }
          if (!diagnostics.children.length) item(diagnostics, "the files load", "none");
          for (const test of answer.tests || []) {
            item(tests, (test.passed ? "✔ " : "✘ ") + test.title
              + (test.failures.length ? "\n  " + test.failures.join("\n  ") : ""), test.passed ? "passed" : "failed");
          }
          if (!tests.children.length) {
            item(tests, answer.testsRun ? "no @tests" : "not run: the files do not load", "none");
          }
          $("explain").textContent = (answer.explain || []).join("\n");
          const contexts = answer.contexts || [];
          if (contexts.length && contexts.join() !== Array.from($("context").options).map((o) => o.value).join()) {
            const chosen = $("context").value;
            $("context").replaceChildren(); contexts.forEach((c) => option($("context"), c));
            if (contexts.includes(chosen)) $("context").value = chosen;
          }
          refreshGutters();
        }

        function noteOnPayload() {
          return payloadNote && payloadNote.text === $("payload").value ? payloadNote.message : "";
        }

        async function run() {
          const mine = ++sequence;
          $("status").textContent = "running…";
          try {
            const response = await fetch("api/run", {
              method: "POST", headers: {"Content-Type": "application/json"},
              body: JSON.stringify({context: $("context").value, files, payload: $("payload").value, project}),
            });
            const answer = await response.json();
            if (mine !== sequence) return;
            render(answer);
            if ($("status").textContent === "running…") $("status").textContent = noteOnPayload();
          } catch (error) {
            if (mine === sequence) $("status").textContent = "the playground does not answer: " + error;
          }
        }

        // The payload indented two spaces a level, every string and number as written (JSON.parse
        // only checks it: it would round big numbers).
        function formatPayload() {
          const text = $("payload").value;
          try { JSON.parse(text); } catch (error) {
            payloadNote = {text, message: "the payload is not JSON: " + error.message};
            $("status").textContent = payloadNote.message;
            return;
          }
          payloadNote = null;
          const tokens = text.match(/"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+/g) || [];
          let out = "", depth = 0;
          const line = () => "\n" + "  ".repeat(depth);
          for (let i = 0; i < tokens.length; i++) {
            const token = tokens[i];
            if (token === "{" || token === "[") {
              const close = token === "{" ? "}" : "]";
              if (tokens[i + 1] === close) { out += token + close; i++; continue; }
              depth++; out += token + line();
            } else if (token === "}" || token === "]") { depth--; out += line() + token; }
            else if (token === ",") out += "," + line();
            else if (token === ":") out += ": ";
            else out += token;
          }
          $("payload").value = out;
          refreshGutters();
          schedule();
        }

        async function newProject() {
          const response = await fetch("api/new", {method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({payload: $("payload").value, model: $("new-model").value})});
          const answer = await response.json();
          if (!response.ok) { $("status").textContent = answer.error; return; }
          project = true;
          for (const path of Object.keys(files)) { delete files[path]; delete original[path]; delete kinds[path]; }
          $("file").replaceChildren(); $("context").replaceChildren();
          for (const file of answer.files) {
            files[file.path] = original[file.path] = file.text; kinds[file.path] = file.kind; option($("file"), file.path);
          }
          option($("context"), answer.context);
          $("context").value = answer.context;
          contextFiles = {}; contextLines = {};
          $("save").hidden = true;
          show(answer.files[1].path);
          $("status").textContent = "a new project from the payload, in this page only: mappings init --from PAYLOAD writes it"
            + (answer.notes || []).map((note) => "; " + note).join("");
          run();
        }

        function schedule() { clearTimeout(timer); timer = setTimeout(run, 150); }

        function changed() {
          const edits = {};
          for (const path in files) if (files[path] !== original[path]) edits[path] = files[path];
          return edits;
        }

        function encode(object) { return btoa(unescape(encodeURIComponent(JSON.stringify(object)))); }
        function decode(text) { return JSON.parse(decodeURIComponent(escape(atob(text)))); }

        async function start() {
          const state = await (await fetch("api/state")).json();
          writes = state.writes; contextFiles = state.contextFiles || {}; contextLines = state.contextLines || {};
          for (const file of state.files) { files[file.path] = original[file.path] = file.text; kinds[file.path] = file.kind; }
          for (const file of state.files) option($("file"), file.path);
          for (const context of state.contexts) option($("context"), context);
          let context = state.context, payload = state.payload;
          if (location.hash.length > 1) {
            try {
              const shared = decode(location.hash.slice(1));
              for (const path in shared.files || {}) if (path in files) files[path] = shared.files[path];
              if (shared.context) context = shared.context;
              if (typeof shared.payload === "string") payload = shared.payload;
            } catch (error) { $("status").textContent = "the link's state could not be read"; }
          }
          if (context) $("context").value = context;
          $("payload").value = payload;
          const first = contextFiles[context] || state.files.map((f) => f.path)[0];
          if (first) { show(first); scrollTo(contextLines[context]); }
          $("save").hidden = !writes;
          run();
        }

        $("mappings").addEventListener("input", () => { files[current] = $("mappings").value; refreshGutters(); schedule(); });
        $("payload").addEventListener("input", () => { refreshGutters(); schedule(); });
        $("mappings").addEventListener("scroll", () => { $("mappings-gutter").scrollTop = $("mappings").scrollTop; });
        $("payload").addEventListener("scroll", () => { $("payload-gutter").scrollTop = $("payload").scrollTop; });
        $("file").addEventListener("change", () => show($("file").value));
        $("format-payload").addEventListener("click", formatPayload);
        $("new-project").addEventListener("click", newProject);
        $("context").addEventListener("change", () => {
          const file = contextFiles[$("context").value];
          if (file && file in files) { show(file); scrollTo(contextLines[$("context").value]); }
          schedule();
        });
        $("share").addEventListener("click", () => {
          const link = location.origin + location.pathname + "#" + encode({context: $("context").value, payload: $("payload").value, files: changed()});
          $("share-box").hidden = false;
          $("share-link").value = link;
          $("share-link").select();
          history.replaceState(null, "", link);
        });
        $("save").addEventListener("click", async () => {
          const response = await fetch("api/save", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({files: changed()})});
          const answer = await response.json();
          if (response.ok) {
            for (const path of answer.saved) original[path] = files[path];
            $("status").textContent = answer.saved.length ? "saved " + answer.saved.join(", ") : "nothing to save";
          } else {
            $("status").textContent = answer.error;
          }
        });
        start();
        </script>
        </body>
        </html>
        """#
}
