import Crypto
import Foundation

/// The dashboard's CSS and JavaScript, embedded in the binary (no build step, no files on disk), and the
/// Content-Security-Policy that allows exactly them.
enum DashboardAssets {
    static let css = """
        *{box-sizing:border-box}
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
        header{background:#1d2330;color:#fff;padding:8px 16px;display:flex;gap:8px 16px;align-items:center;flex-wrap:wrap}
        header nav{display:flex;gap:16px;flex-wrap:wrap}
        header a{color:#cfe0ff;text-decoration:none}header b{margin-right:12px}
        header input{max-width:12em}#logged-in{font-size:12px;opacity:.8}
        main{padding:16px;max-width:100%}h2,h3{overflow-wrap:anywhere}
        .scroll{overflow-x:auto;max-width:100%;margin:8px 0 16px}
        table{border-collapse:collapse;background:#fff;width:100%}
        th,td{border-bottom:1px solid #e3e6ea;padding:4px 8px;text-align:left;vertical-align:top}
        th{background:#eef0f3}svg.bar{background:#e3e6ea;border:0;border-radius:5px;vertical-align:middle;max-width:40vw}
        .pct{margin-left:6px}
        .err{color:#b00020;white-space:pre-wrap;overflow-wrap:anywhere}
        .fix{margin:4px 0}
        .s-failed{color:#b00020}.s-succeeded{color:#18794e}.s-running{color:#3a7bd5}.s-paused{color:#b36200}.s-discarded{color:#6b7280}
        form.inline{display:inline}button{cursor:pointer}#live-state{margin-left:auto;font-size:12px;opacity:.8}
        pre{white-space:pre-wrap;margin:0;font-size:12px;overflow-wrap:anywhere}
        .charts{display:flex;gap:24px;flex-wrap:wrap}figure{margin:0 0 8px;max-width:100%}figcaption{font-size:12px;opacity:.8}
        figure svg{max-width:100%;height:auto}
        svg{background:#fff;border:1px solid #e3e6ea}
        dl.summary{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 16px;background:#fff;padding:8px 12px;margin:8px 0 16px}
        dl.summary dt{font-weight:bold}dl.summary dd{margin:0;overflow-wrap:anywhere}
        .sort a{margin-right:8px}.sort b{margin-right:8px}
        form.search input{width:28em;max-width:70vw} form.search .filters input{width:8em} form.search .filters{white-space:normal}
        form.bulk{display:flex;flex-wrap:wrap;gap:4px 8px;align-items:center;margin:8px 0}
        @media (max-width:600px){main{padding:8px}header{padding:8px}h2{font-size:18px}}
        @media (max-width:760px){table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
        table.stack tr:first-child{display:none}table.stack tr{border-bottom:2px solid #c9ced6;padding:4px 0}
        table.stack td{border:0;padding:2px 8px;overflow-wrap:anywhere}
        table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:bold}}
        #flash{background:#e6f4ea;border:1px solid #18794e;padding:6px 10px;margin:8px 0}
        #confirm{background:#fff;border:1px solid #e3e6ea;padding:12px;margin:8px 0}#confirm .question{font-size:16px;margin-top:0}
        #confirm .back{margin-left:12px}button.danger{background:#b00020;color:#fff;border:1px solid #b00020;padding:4px 12px}
        @media (prefers-color-scheme:dark){
        body{color:#dde3ec;background:#12161d}header{background:#0b0e13}
        table,dl.summary{background:#1a1f28}th{background:#232a35}th,td{border-color:#2c3440}
        a{color:#8fb8ff}svg{background:#1a1f28;border-color:#2c3440}svg.bar{background:#2c3440}
        .err,.s-failed{color:#ff7b86}.s-succeeded{color:#5fd39a}.s-running{color:#7fb0ff}.s-paused{color:#ffb366}.s-discarded{color:#9aa3b2}
        input,select,button{background:#232a35;color:#dde3ec;border:1px solid #3a4452}
        #flash{background:#16301f;border-color:#5fd39a}#confirm{background:#1a1f28;border-color:#2c3440}button.danger{background:#b00020;color:#fff}
        }
        """

    /// Listens to the server's event stream and re-reads the live part of the page when something changed,
    /// at most once a second.
    static let script = """
        (function(){
          var base = document.body.getAttribute('data-base');
          var state = document.getElementById('live-state');
          var pending = false, last = 0;
          // The server says when a page may not show the last change yet (it used a value read before it): look
          // again then, even if nothing else changes.
          function later(body){
            var after = body && body.getAttribute('data-refresh-after');
            if (after && !pending) { pending = true; setTimeout(refresh, Math.max(100, +after)); }
          }
          function refresh(){
            pending = false; last = Date.now();
            fetch(location.href, {headers: {'Accept': 'text/html', 'X-Ferry-Live': '1'}, credentials: 'same-origin'})
              .then(function(r){ if (r.status >= 500) throw new Error('HTTP ' + r.status); return r.text(); })
              .then(function(text){
                var doc = new DOMParser().parseFromString(text, 'text/html');
                var fresh = doc.getElementById('live'), current = document.getElementById('live');
                later(doc.body);
                if (!fresh || !current) return;
                // The operator's selection survives the refresh: the same jobs are checked again.
                var kept = {}, boxes = document.querySelectorAll('input[name="job"]:checked'), i;
                for (i = 0; i < boxes.length; i++) kept[boxes[i].value] = true;
                current.innerHTML = fresh.innerHTML;
                boxes = document.querySelectorAll('input[name="job"]');
                for (i = 0; i < boxes.length; i++) if (kept[boxes[i].value]) boxes[i].checked = true;
              })
              // A refresh that failed (the database or the dashboard away for a moment: no answer, or 5xx) is tried again,
              // so the page does not stay behind until the next change.
              .catch(function(){ if (!pending) { pending = true; setTimeout(refresh, 2000); } });
          }
          document.addEventListener('change', function(e){
            var box = e.target;
            if (!box.classList || !box.classList.contains('select-all')) return;
            var boxes = document.querySelectorAll('input[name="job"][form="' + box.getAttribute('data-form') + '"]');
            for (var i = 0; i < boxes.length; i++) boxes[i].checked = box.checked;
          });
          function changed(){
            if (pending) return;
            pending = true;
            setTimeout(refresh, Math.max(0, 1000 - (Date.now() - last)));
          }
          later(document.body);
          if (!window.EventSource) return;
          var source = new EventSource(base + '/events');
          source.addEventListener('change', changed);
          // Changes while the stream was down were not heard: after a reconnect, read the page again.
          var dropped = false;
          source.onopen = function(){ state.textContent = 'live'; if (dropped) { dropped = false; changed(); } };
          source.onerror = function(){ state.textContent = 'reconnecting…'; dropped = true; };
        })();
        """

    /// The header a live refresh sends: it is no sign of an operator at the screen, so it does not keep a session
    /// from idling out.
    static let liveRefreshHeader = "X-Ferry-Live"

    /// Inline `<style>` and `<script>` are allowed by their hashes (no 'unsafe-inline', no extra requests);
    /// everything else the pages do is same-origin: fetch and the event stream, form posts. No framing at all.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src '\(hash(script))'; style-src '\(hash(css))'; img-src 'self'; "
        + "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    private static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.hash(data: Array(text.utf8))).base64EncodedString()
    }
}
