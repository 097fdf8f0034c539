import Crypto
import Foundation

/// The dashboard's CSS and JavaScript, embedded in the binary (no build step, no files on disk), and the
/// Content-Security-Policy that allows exactly them.
enum DashboardAssets {
    static let css = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
        header{background:#1d2330;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center}
        header a{color:#cfe0ff;text-decoration:none}header b{margin-right:12px}
        main{padding:16px}table{border-collapse:collapse;background:#fff;width:100%;margin:8px 0 16px}
        th,td{border-bottom:1px solid #e3e6ea;padding:4px 8px;text-align:left;vertical-align:top}
        th{background:#eef0f3}svg.bar{background:#e3e6ea;border:0;border-radius:5px;vertical-align:middle}
        .err{color:#b00020;white-space:pre-wrap}
        .s-failed{color:#b00020}.s-succeeded{color:#18794e}.s-running{color:#3a7bd5}
        form.inline{display:inline}button{cursor:pointer}#live-state{margin-left:auto;font-size:12px;opacity:.8}
        pre{white-space:pre-wrap;margin:0;font-size:12px}
        .charts{display:flex;gap:24px;flex-wrap:wrap}figure{margin:0 0 8px}figcaption{font-size:12px;opacity:.8}
        svg{background:#fff;border:1px solid #e3e6ea}
        """

    /// Listens to the server's event stream and re-reads the live part of the page when something changed,
    /// at most once a second.
    static let script = """
        (function(){
          var base = document.body.getAttribute('data-base');
          var state = document.getElementById('live-state');
          var pending = false, last = 0;
          function refresh(){
            pending = false; last = Date.now();
            fetch(location.href, {headers: {'Accept': 'text/html', 'X-Ferry-Live': '1'}, credentials: 'same-origin'})
              .then(function(r){ return r.text(); })
              .then(function(text){
                var doc = new DOMParser().parseFromString(text, 'text/html');
                var fresh = doc.getElementById('live'), current = document.getElementById('live');
                if (fresh && current) current.innerHTML = fresh.innerHTML;
              });
          }
          function changed(){
            if (pending) return;
            pending = true;
            setTimeout(refresh, Math.max(0, 1000 - (Date.now() - last)));
          }
          if (!window.EventSource) return;
          var source = new EventSource(base + '/events');
          source.addEventListener('change', changed);
          source.onopen = function(){ state.textContent = 'live'; };
          source.onerror = function(){ state.textContent = 'reconnecting…'; };
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
